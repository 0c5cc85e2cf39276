import { isObject } from './json.js';
import { firstLine, numberField, parse, stringField } from './events.js';
import { LOGIN_HINTS, type Failure, type FailureContext, type ReadAttempt } from './failure.js';
import { parseWordedDuration } from './reset-time.js';

// Gemini CLI reports a failed run on stdout only with `-o stream-json` (a final
// {"type":"result","status":"error","error":{"type","message"}}). With `-o json` and always before
// that, it writes to stderr: "Attempt n failed: …", "<Name>Error: <message>" with `status: <HTTP>`,
// and with `-o json` a closing {"session_id","error":{"type","message","code"}} object. Its exit
// code is the HTTP status modulo 256 (173 = 429) or 41 for a missing or rejected auth setting.
// Only these are read; tool_use/tool_result events and model messages are the transcript.

const AUTH_EXIT = 41;
const LOGIN = /api key not valid|api_key_invalid|unauthenticated|\b401\b|gemini_api_key|set an auth method|invalid auth method|login required|re-?authenticate|permission_denied|\b403\b|suspended/i;
const SERVICE = /overloaded|\bunavailable\b|service unavailable|\b5\d\d\b|internal error|fetch failed|econn\w+|etimedout|socket hang up|network/i;
const QUOTA = /quotaerror|resource_exhausted|\b429\b|exhausted your (?:daily )?(?:quota|capacity)|quota (?:will reset|exceeded)|exceeded your current quota|rate limit/i;

/** Classify a failed Gemini CLI attempt (see classifyFailure). */
export function geminiFailure(attempt: ReadAttempt, context: FailureContext): Failure {
  const cli = 'gemini';
  const { events } = attempt;
  const result = events.findLast((e) => e.type === 'result' && 'status' in e);
  // A finished run, or a json envelope with a response: the agent's own answer, however invalid.
  if (stringField(result, 'status') === 'success' || events.some((e) => typeof e.response === 'string')) return { kind: 'invalid' };
  const closing = stderrEnvelope(attempt.stderr);
  const errorType = stringField(result?.error, 'type') ?? stringField(closing, 'type') ?? /\b(\w*QuotaError): /.exec(attempt.stderr)?.[1] ?? '';
  const message = stringField(result?.error, 'message') ?? stringField(closing, 'message') ?? stderrMessage(attempt.stderr);
  const status = numberField(closing, 'code') ?? Number(/^\s*status: (\d{3})\s*$/m.exec(attempt.stderr)?.[1] ?? NaN);
  const detail = firstLine(apiMessage(message)) || `exit code ${attempt.exitCode}`;
  const text = `${errorType}\n${message}`;

  if (attempt.exitCode === AUTH_EXIT || LOGIN.test(message) || status === 401 || status === 403) return { kind: 'login', cli, detail, hint: LOGIN_HINTS.gemini };
  // Gemini CLI files a 503 under RetryableQuotaError too: the status decides.
  if (status >= 500 || (SERVICE.test(message) && !QUOTA.test(message))) return { kind: 'transient', cli, detail };
  if (QUOTA.test(text) || status === 429) return { kind: 'usage_limit', cli, detail, resetAt: resetIn(message, context) };
  return { kind: 'invalid' };
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

// Start-up chatter Gemini CLI prints on every run.
const NOISE = /^(?:Warning:|Ripgrep is not available|\[STARTUP\]|YOLO mode|Loaded cached credentials)/;

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
  const ms = wording ? parseWordedDuration(wording[1] as string) : null;
  return ms === null ? null : new Date(context.now.getTime() + ms);
}
