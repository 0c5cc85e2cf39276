import { isObject } from './json.js';
import { parse, stringField } from './events.js';
import { LOGIN_HINTS, type Failure, type FailureContext, type ReadAttempt } from './failure.js';
import { parseLocalResetTime, parseWordedDuration } from './reset-time.js';

// Codex `exec --json` reports a failed turn as a top-level `error` event followed by `turn.failed`
// (`error.message`); while it retries, it prints `error` events "Reconnecting... n/5 (<why>)".
// Those messages are the only text read: items (agent messages, command output, file changes)
// are the transcript. Items of type "error" are warnings Codex recovers from.

// 0.169.0 writes "You’ve" with a typographic apostrophe; the web UI and older versions a plain one.
const LIMIT = /you[’']ve hit your usage limit/i;
const RATE_LIMITED = /\b429\b|too many requests/i;
const LOGIN = /\b401\b|unauthorized|missing bearer|incorrect api key|invalid_api_key|missing environment variable|not logged in|please (?:re-?)?log ?in|refresh token|token (?:has )?expired|sign in again/i;
// Not lifted by waiting: the plan has no Codex, or the API key has no money.
const ACCOUNT = /upgrade to plus|usage is not included|quota exceeded\. check your plan and billing|\b403\b|forbidden/i;
const SERVICE = /waiting for network|stream disconnected|connection failed|error sending request|failed to lookup address|timed? ?out|\b5\d\d\b|internal server error|service unavailable|bad gateway|at capacity|high demand|overloaded/i;

/** Classify a failed Codex attempt (see classifyFailure). */
export function codexFailure(attempt: ReadAttempt, context: FailureContext): Failure {
  const { events } = attempt;
  // A turn that completed is the agent's own answer, however invalid.
  if (events.some((e) => e.type === 'turn.completed')) return { kind: 'invalid' };
  const failed = events.findLast((e) => e.type === 'turn.failed');
  const message = (failed ? stringField(failed.error, 'message') : undefined) ?? events.findLast((e) => e.type === 'error' && typeof e.message === 'string')?.message;
  return typeof message === 'string' ? fromMessage(message, context) : { kind: 'invalid' };
}

/** A Codex stdout line that already shows the attempt cannot succeed (see failureInLine). */
export function codexFailureInLine(line: string): Failure | undefined {
  const event = parse(line.trim());
  if (!isObject(event) || event.type !== 'error' || typeof event.message !== 'string') return undefined;
  const failure = fromMessage(event.message, { now: new Date(0), timeZone: 'UTC' });
  // A limit ends the turn at once, and Codex recovers from most reconnects by itself. Two do not
  // end: a rejected login is retried 10 times (13 s), and "waiting for network" never gives up.
  if (failure.kind === 'login') return failure;
  return failure.kind === 'transient' && /waiting for network/i.test(event.message) ? failure : undefined;
}

function fromMessage(message: string, context: Pick<FailureContext, 'now' | 'timeZone'>): Failure {
  const cli = 'codex';
  const detail = message.trim();
  if (LIMIT.test(detail)) return { kind: 'usage_limit', cli, detail, resetAt: resetIn(detail, context) };
  if (ACCOUNT.test(detail)) return { kind: 'login', cli, detail, hint: `The account or plan must allow Codex use. ${LOGIN_HINTS.codex}` };
  if (LOGIN.test(detail)) return { kind: 'login', cli, detail, hint: LOGIN_HINTS.codex };
  if (RATE_LIMITED.test(detail)) return { kind: 'usage_limit', cli, detail, resetAt: null };
  if (SERVICE.test(detail)) return { kind: 'transient', cli, detail };
  return { kind: 'invalid' };
}

// "… Try again at 7:13 PM." (today, local time), "… try again at Nov 26th, 2026 2:08 PM.",
// "… try again in 3 days 6 hours 57 minutes.", "… Try again later." (no time: null).
function resetIn(message: string, context: Pick<FailureContext, 'now' | 'timeZone'>): Date | null {
  const at = /try again at (.+?)\.?\s*$/i.exec(message);
  if (at) return parseLocalResetTime(at[1] as string, context.timeZone, context.now);
  const within = /try again in (.+?)\.?\s*$/i.exec(message);
  const ms = within ? parseWordedDuration(within[1] as string) : null;
  return ms === null ? null : new Date(context.now.getTime() + ms);
}
