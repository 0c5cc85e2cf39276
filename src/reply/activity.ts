import { isObject } from './json.js';
import { firstLine, parse, stringField } from './events.js';

// Longer lines are not parsed: a JSON line this long is a tool result or a whole file, neither
// of which a status line shows, and parsing it per output line would cost more than it shows.
const PARSE_MAX = 256 * 1024;
// What a status line could show at most; the reporter cuts to the terminal's width.
const SHOWN_MAX = 300;
// Events that never show anything and can be long (tool results, partial deltas): skipped unparsed.
const SILENT = /^\{\s*"type"\s*:\s*"(?:user|stream_event|thread\.started|turn\.started|turn\.completed|init)"/;
// The argument that says what a tool call does, by the names the CLIs give it.
const TOOL_ARGUMENT = ['command', 'file_path', 'absolute_path', 'notebook_path', 'path', 'pattern', 'url', 'query', 'description', 'prompt'];

/**
 * What one line of a streaming agent CLI's stdout shows a person in a live status line: the
 * model's latest text (its first line), a tool call ("Bash: npm test", "Edit: src/app.ts"), or an
 * error the CLI reports; undefined for events that show nothing. Knows Claude Code stream-json,
 * Codex JSONL and Gemini CLI stream-json; a line that is not JSON comes back as it is. File paths
 * under `cwd` are shown relative to it. Pure; the caller cleans the text for a terminal.
 */
export function activityOf(line: string, cwd?: string): string | undefined {
  const text = line.trim();
  if (text === '') return undefined;
  if (!text.startsWith('{')) return shorten(text);
  if (text.length > PARSE_MAX || SILENT.test(text)) return undefined;
  const event = parse(text);
  if (!isObject(event)) return shorten(text);
  const shown = [claude, codex, gemini].reduce<Shown>((found, read) => (found === null ? read(event, cwd) : found), null);
  return shown ? shorten(shown) : undefined;
}

// null: not this CLI's event; undefined: this CLI's event, showing nothing.
type Shown = string | undefined | null;

function claude(event: Record<string, unknown>, cwd?: string): Shown {
  if (event.type === 'assistant' && isObject(event.message) && Array.isArray(event.message.content)) {
    const block = event.message.content.filter(isObject).findLast((b) => b.type === 'text' || b.type === 'tool_use');
    if (block?.type === 'tool_use') return tool(stringField(block, 'name') ?? 'tool', block.input, cwd);
    return firstLine(stringField(block, 'text'));
  }
  if (event.type === 'result' && 'is_error' in event) return event.is_error === true ? firstLine(stringField(event, 'result')) : undefined;
  if (event.type === 'rate_limit_event') return stringField(event.rate_limit_info, 'status') === 'rejected' ? 'Usage limit reached' : undefined;
  if (event.type === 'system') return event.subtype === 'api_retry' ? retryLine(event) : undefined;
  return null;
}

function codex(event: Record<string, unknown>, cwd?: string): Shown {
  const type = stringField(event, 'type') ?? '';
  if (type === 'error') return firstLine(stringField(event, 'message'));
  if (type === 'turn.failed') return firstLine(stringField(event.error, 'message'));
  if (!/^(thread|turn|item)\./.test(type)) return null;
  if ((type !== 'item.started' && type !== 'item.completed') || !isObject(event.item)) return undefined;
  const item = event.item;
  switch (item.type) {
    case 'agent_message':
      return firstLine(stringField(item, 'text'));
    case 'command_execution':
      return type === 'item.started' ? `Shell: ${firstLine(stringField(item, 'command'))}` : undefined;
    case 'file_change':
      return Array.isArray(item.changes) ? `Edit: ${item.changes.map((c) => relative(stringField(c, 'path') ?? '?', cwd)).join(', ')}` : undefined;
    case 'mcp_tool_call':
      return type === 'item.started' ? `${stringField(item, 'server') ?? 'mcp'}.${stringField(item, 'tool') ?? 'tool'}` : undefined;
    case 'web_search':
      return `Search: ${stringField(item, 'query') ?? ''}`;
    case 'error':
      return firstLine(stringField(item, 'message'));
    default:
      return undefined;
  }
}

function gemini(event: Record<string, unknown>, cwd?: string): Shown {
  if (event.type === 'message') return event.role === 'assistant' ? firstLine(stringField(event, 'content')) : undefined;
  if (event.type === 'tool_use') return tool(stringField(event, 'tool_name') ?? 'tool', event.parameters, cwd);
  if (event.type === 'tool_result') return event.status === 'error' ? `${stringField(event, 'tool_id') ?? 'tool'} failed` : undefined;
  if (event.type === 'result') return event.status === 'error' ? firstLine(stringField(event.error, 'message')) : undefined;
  return undefined;
}

function tool(name: string, input: unknown, cwd?: string): string {
  const key = TOOL_ARGUMENT.find((k) => typeof (isObject(input) ? input[k] : undefined) === 'string');
  const value = key && isObject(input) ? (input[key] as string) : '';
  return value ? `${name}: ${firstLine(/path$/.test(key as string) ? relative(value, cwd) : value)}` : name;
}

// {"type":"system","subtype":"api_retry","attempt":1,"max_retries":10,"retry_delay_ms":5000,"error_status":429,"error":"rate_limit"}
function retryLine(event: Record<string, unknown>): string {
  const attempt = typeof event.attempt === 'number' ? ` (attempt ${event.attempt}${typeof event.max_retries === 'number' ? `/${event.max_retries}` : ''})` : '';
  const why = [stringField(event, 'error'), typeof event.error_status === 'number' ? String(event.error_status) : undefined].filter(Boolean).join(' ');
  return `Retrying the API request${attempt}${why ? `: ${why}` : ''}`;
}

function relative(file: string, cwd?: string): string {
  if (!cwd) return file;
  const base = cwd.endsWith('/') ? cwd : `${cwd}/`;
  return file.startsWith(base) ? file.slice(base.length) : file;
}


function shorten(text: string): string {
  return text.length > SHOWN_MAX ? `${text.slice(0, SHOWN_MAX - 1)}…` : text;
}
