import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { firstLine, isObject, numberField, parse, stringField } from '../reply/json.js';
import { parseResetText } from '../reply/reset-time.js';
import { usageFigures } from '../reply/usage.js';
import {
  relativeTo,
  reported,
  wholeText,
  type AgentCli,
  type Failure,
  type FailureContext,
  type TextRendering,
} from './adapter.js';

// Codex `exec --json` reports a failed turn as a top-level `error` event followed by `turn.failed`
// (`error.message`); while it retries, it prints `error` events "Reconnecting... n/5 (<why>)".
// Those messages are the only text read: items (agent messages, command output, file changes)
// are the transcript. Items of type "error" are warnings Codex recovers from.

// 0.169.0 writes "You’ve" with a typographic apostrophe; the web UI and older versions a plain one.
const LIMIT = /you[’']ve hit your usage limit/i;
const RATE_LIMITED = /\b429\b|too many requests/i;
const LOGIN = new RegExp(
  String.raw`\b401\b|unauthorized|missing bearer|incorrect api key|invalid_api_key|missing environment variable|` +
    String.raw`not logged in|please (?:re-?)?log ?in|refresh token|token (?:has )?expired|sign in again`,
  'i',
);
// Not lifted by waiting: the plan has no Codex, or the API key has no money.
const ACCOUNT = /upgrade to plus|usage is not included|quota exceeded\. check your plan and billing|\b403\b|forbidden/i;
const SERVICE = new RegExp(
  String.raw`waiting for network|stream disconnected|connection failed|error sending request|` +
    String.raw`failed to lookup address|timed? ?out|\b5\d\d\b|internal server error|service unavailable|` +
    String.raw`bad gateway|at capacity|high demand|overloaded`,
  'i',
);
// Codex always starts with thread.started; a bare "error" event is not enough (opencode's JSONL
// stream has one too).
const OWN_EVENT = /^(thread|turn|item)\./;
const LOGIN_HINT = "Run `codex login`, or set CODEX_API_KEY (in the environment or the role's env:).";

/** Codex: `codex exec --json`, a JSONL event stream whose last completed agent_message holds the final text. */
export const codex: AgentCli = {
  name: 'codex',
  recognise: (program) => program === 'codex' || program === '@openai/codex',
  silent: ['thread.started', 'turn.started', 'turn.completed'],
  login: {
    folder: [
      ['CODEX_HOME', ''],
      ['HOME', '.codex'],
    ],
    keys: ['OPENAI_API_KEY', 'CODEX_API_KEY'],
  },
  loginHint: LOGIN_HINT,
  // `exec --output-schema FILE` constrains the final message to the schema (OpenAI's structured
  // outputs, strict form only). No option caps a call's spend.
  calls: { subcommand: ['exec', 'e'], schema: { option: '--output-schema', file: true, strict: true } },
  preset: 'codex',
  setup: 'Install Codex (npm install -g @openai/codex) and run `codex login`, or set CODEX_API_KEY.',

  unwrap(out) {
    // A stdout that is one JSON object is a stream of one event.
    const whole = out.whole;
    const events = isObject(whole) ? [whole] : out.lines;
    if (!events || !events.some((e) => typeof e.type === 'string' && OWN_EVENT.test(e.type))) return null;
    const message = events
      .filter((e) => e.type === 'item.completed' && isObject(e.item))
      .map((e) => e.item as Record<string, unknown>)
      .findLast((item) => item.type === 'agent_message' || item.item_type === 'assistant_message');
    if (message && typeof message.text === 'string') return { text: message.text };
    const failure = events.findLast((e) => e.type === 'turn.failed' || e.type === 'error');
    if (failure)
      return reported('Codex', (isObject(failure.error) ? failure.error.message : failure.message) ?? 'turn failed');
    return { error: 'finished its Codex event stream without an agent message' };
  },

  activity: (event, cwd) => shown(event, cwd, firstLine),
  // A file change shows once, when done (the status line shows it as it starts, too).
  transcript: (event, cwd) =>
    event.type === 'item.started' && stringField(event.item, 'type') === 'file_change'
      ? undefined
      : shown(event, cwd, wholeText),

  // turn.completed.usage holds the thread's running total (cumulative since the thread started,
  // all model requests of the turn included), so the last one is the attempt's.
  usage(events) {
    const completed = events.findLast((e) => e.type === 'turn.completed' && isObject(e.usage));
    if (!completed) return undefined;
    return usageFigures({
      inputTokens: numberField(completed.usage, 'input_tokens'),
      cachedInputTokens: numberField(completed.usage, 'cached_input_tokens'),
      // OpenAI counts reasoning tokens within output_tokens.
      outputTokens: numberField(completed.usage, 'output_tokens'),
    });
  },

  failure(attempt, time) {
    const { events } = attempt;
    // A turn that completed is the agent's own answer, however invalid.
    if (events.some((e) => e.type === 'turn.completed')) return { kind: 'invalid' };
    const failed = events.findLast((e) => e.type === 'turn.failed');
    const message =
      (failed ? stringField(failed.error, 'message') : undefined) ??
      events.findLast((e) => e.type === 'error' && typeof e.message === 'string')?.message;
    return typeof message === 'string' ? fromMessage(message, time) : { kind: 'invalid' };
  },

  // What `codex login status` reads: no key in the environment and no auth.json in its folder. A
  // config.toml naming a model_provider of its own (that provider's key) or keeping the login
  // elsewhere (cli_auth_credentials_store: the keyring) is not judged.
  missingLogin(env) {
    if (env.OPENAI_API_KEY || env.CODEX_API_KEY) return undefined;
    const folder = env.CODEX_HOME || path.join(env.HOME ?? '', '.codex');
    if (existsSync(path.join(folder, 'auth.json'))) return undefined;
    const config = readText(path.join(folder, 'config.toml'));
    if (/^\s*(model_provider|cli_auth_credentials_store)\s*=/m.test(config)) return undefined;
    return (
      `Codex has no login: no ${path.join(folder, 'auth.json')}, and neither CODEX_API_KEY nor ` +
      `OPENAI_API_KEY is set`
    );
  },

  failureInLine(line) {
    const event = parse(line.trim());
    if (!isObject(event) || event.type !== 'error' || typeof event.message !== 'string') return undefined;
    const failure = fromMessage(event.message, { now: new Date(0), timeZone: 'UTC' });
    // A limit ends the turn at once, and Codex recovers from most reconnects by itself. Two do not
    // end: a rejected login is retried 10 times (13 s), and "waiting for network" never gives up.
    if (failure.kind === 'login') return failure;
    return failure.kind === 'transient' && /waiting for network/i.test(event.message) ? failure : undefined;
  },
};

function readText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

function fromMessage(message: string, time: Pick<FailureContext, 'now' | 'timeZone'>): Failure {
  const cli = 'codex';
  const detail = message.trim();
  if (LIMIT.test(detail)) return { kind: 'usage_limit', cli, detail, resetAt: resetIn(detail, time) };
  if (ACCOUNT.test(detail))
    return { kind: 'login', cli, detail, hint: `The account or plan must allow Codex use. ${LOGIN_HINT}` };
  if (LOGIN.test(detail)) return { kind: 'login', cli, detail, hint: LOGIN_HINT };
  if (RATE_LIMITED.test(detail)) return { kind: 'usage_limit', cli, detail, resetAt: null };
  if (SERVICE.test(detail)) return { kind: 'transient', cli, detail };
  return { kind: 'invalid' };
}

// "… Try again at 7:13 PM." (today, local time), "… try again at Nov 26th, 2026 2:08 PM.",
// "… try again in 3 days 6 hours 57 minutes.", "… Try again later." (no time: null).
function resetIn(message: string, time: Pick<FailureContext, 'now' | 'timeZone'>): Date | null {
  const shown = /try again (at|in) (.+?)\.?\s*$/i.exec(message);
  return shown
    ? parseResetText(`${shown[1] === 'in' ? 'in ' : ''}${shown[2] as string}`, time.timeZone, time.now)
    : null;
}

// What one event shows, the agent's messages rendered by `text` (a line, or all of it).
function shown(
  event: Record<string, unknown>,
  cwd: string | undefined,
  text: TextRendering,
): string | undefined | null {
  const type = stringField(event, 'type') ?? '';
  if (type === 'error') return text(stringField(event, 'message'));
  if (type === 'turn.failed') return text(stringField(event.error, 'message'));
  if (!OWN_EVENT.test(type)) return null;
  if ((type !== 'item.started' && type !== 'item.completed') || !isObject(event.item)) return undefined;
  const item = event.item;
  switch (item.type) {
    case 'agent_message':
      return text(stringField(item, 'text'));
    case 'command_execution':
      return type === 'item.started' ? `Shell: ${firstLine(stringField(item, 'command'))}` : undefined;
    case 'file_change':
      return Array.isArray(item.changes)
        ? `Edit: ${item.changes.map((c) => relativeTo(stringField(c, 'path') ?? '?', cwd)).join(', ')}`
        : undefined;
    case 'mcp_tool_call':
      return type === 'item.started'
        ? `${stringField(item, 'server') ?? 'mcp'}.${stringField(item, 'tool') ?? 'tool'}`
        : undefined;
    case 'web_search':
      return `Search: ${stringField(item, 'query') ?? ''}`;
    case 'error':
      return text(stringField(item, 'message'));
    default:
      return undefined;
  }
}
