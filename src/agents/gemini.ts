import type { Unwrapped } from '../reply/extract.js';
import { firstLine, isObject, numberField, parse, stringField } from '../reply/json.js';
import { parseResetText } from '../reply/reset-time.js';
import { sumKnown, usageFigures } from '../reply/usage.js';
import {
  reported,
  toolCall,
  wholeText,
  type AgentCli,
  type FailureContext,
  type Shown,
  type TextRendering,
} from './adapter.js';

// Gemini CLI reports a failed run on stdout only with `-o stream-json` (a final
// {"type":"result","status":"error","error":{"type","message"}}). With `-o json` and always before
// that, it writes to stderr: "Attempt n failed: …", "<Name>Error: <message>" with `status: <HTTP>`,
// and with `-o json` a closing {"session_id","error":{"type","message","code"}} object. Its exit
// code is the HTTP status modulo 256 (173 = 429) or 41 for a missing or rejected auth setting.
// Only these are read; tool_use/tool_result events and model messages are the transcript.

const AUTH_EXIT = 41;
const LOGIN = new RegExp(
  String.raw`api key not valid|api_key_invalid|unauthenticated|\b401\b|gemini_api_key|set an auth method|` +
    String.raw`invalid auth method|login required|re-?authenticate|permission_denied|\b403\b|suspended`,
  'i',
);
const SERVICE = new RegExp(
  String.raw`overloaded|\bunavailable\b|service unavailable|\b5\d\d\b|internal error|fetch failed|econn\w+|` +
    String.raw`etimedout|socket hang up|network`,
  'i',
);
const QUOTA = new RegExp(
  String.raw`quotaerror|resource_exhausted|\b429\b|exhausted your (?:daily )?(?:quota|capacity)|` +
    String.raw`quota (?:will reset|exceeded)|exceeded your current quota|rate limit`,
  'i',
);
// Start-up chatter Gemini CLI prints on every run.
const NOISE = /^(?:Warning:|Ripgrep is not available|\[STARTUP\]|YOLO mode|Loaded cached credentials)/;
const LOGIN_HINT =
  "Set GEMINI_API_KEY (in the environment or the role's env:), or run `gemini` once and choose a login.";

/**
 * Gemini CLI: `gemini -p -o json`, one (pretty-printed) object whose `response` holds the final
 * text; or `-o stream-json`, JSONL from an `init` event to a `result` event, the model's text
 * arriving in `message` deltas.
 */
export const gemini: AgentCli = {
  name: 'gemini',
  recognise: (program) => program === 'gemini' || program === '@google/gemini-cli',
  silent: ['init'],
  login: {
    folder: [
      ['GEMINI_CLI_HOME', '.gemini'],
      ['HOME', '.gemini'],
    ],
    keys: ['GEMINI_API_KEY', 'GOOGLE_API_KEY'],
  },
  loginHint: LOGIN_HINT,
  preset: 'gemini',
  setup:
    'Install Gemini CLI (npm install -g @google/gemini-cli) and log in once by running `gemini`, ' +
    'or set GEMINI_API_KEY.',

  unwrap(out) {
    const whole = out.whole;
    if (!isObject(whole)) return unwrapStream(out.lines);
    // A reply of our own format that happens to have a `response` field is not an envelope.
    if (
      'status' in whole ||
      !('response' in whole || ('error' in whole && 'stats' in whole) || ('session_id' in whole && 'stats' in whole))
    )
      return null;
    if (isObject(whole.error)) return reported('Gemini CLI', whole.error.message ?? 'no message');
    if (typeof whole.response === 'string') return { text: whole.response };
    return null;
  },

  activity: (event, cwd) => shown(event, cwd, firstLine) ?? undefined,
  // A `delta` message is a piece of the model's text, joined to the pieces around it as it came.
  transcript: (event, cwd): Shown | undefined | null => {
    if (event.type === 'message' && event.delta === true && event.role === 'assistant')
      return { piece: stringField(event, 'content') ?? '' };
    return shown(event, cwd, wholeText);
  },

  // -o json `stats.models.<model>.tokens` (prompt includes cached; candidates and thoughts are
  // generated); -o stream-json the closing result's `stats` (total_tokens includes thoughts, which
  // it does not list). Every model counts: the router's calls are billed too.
  usage(events) {
    const streamed = events.findLast(
      (e) => e.type === 'result' && stringField(e, 'status') !== undefined && isObject(e.stats),
    );
    if (streamed && isObject(streamed.stats)) {
      const input = numberField(streamed.stats, 'input_tokens');
      const total = numberField(streamed.stats, 'total_tokens');
      return usageFigures({
        inputTokens: input,
        cachedInputTokens: numberField(streamed.stats, 'cached'),
        outputTokens:
          input !== undefined && total !== undefined ? total - input : numberField(streamed.stats, 'output_tokens'),
      });
    }
    const envelope = events.find((e) => isObject(e.stats) && isObject(e.stats.models));
    const models =
      envelope && isObject(envelope.stats) && isObject(envelope.stats.models)
        ? Object.values(envelope.stats.models).filter(isObject)
        : [];
    const tokens = models.map((m) => m.tokens).filter(isObject);
    if (tokens.length === 0) return undefined;
    const total = (key: string) => sumKnown(tokens.map((t) => numberField(t, key)));
    return usageFigures({
      inputTokens: total('prompt'),
      cachedInputTokens: total('cached'),
      outputTokens: sumKnown([total('candidates'), total('thoughts')]),
    });
  },

  failure(attempt, context) {
    const cli = 'gemini';
    const { events } = attempt;
    const result = events.findLast((e) => e.type === 'result' && 'status' in e);
    // A finished run, or a json envelope with a response: the agent's own answer, however invalid.
    if (stringField(result, 'status') === 'success' || events.some((e) => typeof e.response === 'string'))
      return { kind: 'invalid' };
    const closing = stderrEnvelope(attempt.stderr);
    const errorType =
      stringField(result?.error, 'type') ??
      stringField(closing, 'type') ??
      /\b(\w*QuotaError): /.exec(attempt.stderr)?.[1] ??
      '';
    const message =
      stringField(result?.error, 'message') ?? stringField(closing, 'message') ?? stderrMessage(attempt.stderr);
    const status = numberField(closing, 'code') ?? Number(/^\s*status: (\d{3})\s*$/m.exec(attempt.stderr)?.[1] ?? NaN);
    const detail = firstLine(apiMessage(message)) || `exit code ${attempt.exitCode}`;

    if (attempt.exitCode === AUTH_EXIT || LOGIN.test(message) || status === 401 || status === 403)
      return { kind: 'login', cli, detail, hint: LOGIN_HINT };
    // Gemini CLI files a 503 under RetryableQuotaError too: the status decides.
    if (status >= 500 || (SERVICE.test(message) && !QUOTA.test(message))) return { kind: 'transient', cli, detail };
    if (QUOTA.test(`${errorType}\n${message}`) || status === 429)
      return { kind: 'usage_limit', cli, detail, resetAt: resetIn(message, context) };
    return { kind: 'invalid' };
  },
};

function unwrapStream(events: Record<string, unknown>[] | null): Unwrapped | null {
  if (!events || !events.some((e) => e.type === 'init' && 'session_id' in e)) return null;
  const result = events.findLast((e) => e.type === 'result');
  if (isObject(result?.error)) return reported('Gemini CLI', result.error.message ?? 'no message');
  // The final message: the assistant's deltas after the last tool call.
  const lastTool = events.findLastIndex((e) => e.type === 'tool_use' || e.type === 'tool_result');
  const parts = events
    .slice(lastTool + 1)
    .filter((e) => e.type === 'message' && e.role === 'assistant' && typeof e.content === 'string');
  if (parts.length === 0) return { error: 'finished its Gemini CLI event stream without a model message' };
  return { text: parts.map((e) => e.content as string).join('') };
}

// "[API Error: <message or the API's JSON error>]\n<advice>": the API's own message.
function apiMessage(message: string): string {
  const inner = /^\[API Error: ([\s\S]*?)\](?:\n|$)/.exec(message)?.[1] ?? message;
  const json = parse(inner.trim());
  return stringField(isObject(json) ? json.error : undefined, 'message') ?? inner;
}

// The -o json error object Gemini CLI writes last on stderr.
function stderrEnvelope(stderr: string): Record<string, unknown> | undefined {
  const start = stderr.lastIndexOf('\n{');
  const value = parse((start === -1 ? stderr : stderr.slice(start)).trim());
  return isObject(value) && isObject(value.error) ? value.error : undefined;
}

// Without a JSON envelope: the last line naming an error ("… TerminalQuotaError: <message>",
// "… _ApiError: {<API error JSON>}"), else the first line that is not start-up chatter. Indented
// lines are stack traces and object dumps.
function stderrMessage(stderr: string): string {
  const lines = stderr.split('\n').filter((l) => l.trim() !== '' && !/^\s/.test(l));
  const named = lines.findLast((l) => /\b\w*Error: /.test(l));
  if (named) return named.slice(named.search(/\b\w*Error: /)).replace(/^\w*Error: /, '');
  return lines.find((l) => !NOISE.test(l))?.trim() ?? '';
}

// "Your quota will reset after 5s.", "Please retry in 5.2s.", "Suggested retry after 60s."
function resetIn(message: string, context: FailureContext): Date | null {
  const wording = /(?:reset after|retry in|retry after)\s+(\d[\d.]*\s*[a-z]+(?:\s*\d[\d.]*\s*[a-z]+)*)/i.exec(message);
  return wording ? parseResetText(`in ${wording[1] as string}`, context.timeZone, context.now) : null;
}

// What one event shows, the model's text rendered by `text` (a line, or all of it); null: not Gemini's.
function shown(
  event: Record<string, unknown>,
  cwd: string | undefined,
  text: TextRendering,
): string | undefined | null {
  if (event.type === 'message') return event.role === 'assistant' ? text(stringField(event, 'content')) : undefined;
  if (event.type === 'tool_use') return toolCall(stringField(event, 'tool_name') ?? 'tool', event.parameters, cwd);
  if (event.type === 'tool_result')
    return event.status === 'error' ? `${stringField(event, 'tool_id') ?? 'tool'} failed` : undefined;
  if (event.type === 'result') return event.status === 'error' ? text(stringField(event.error, 'message')) : undefined;
  return event.type === 'init' ? undefined : null;
}
