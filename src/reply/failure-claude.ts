import { isObject } from './json.js';
import { numberField, stringField } from './events.js';
import { LOGIN_HINTS, type Failure, type FailureContext, type ReadAttempt } from './failure.js';
import { fromEpoch, parseResetText } from './reset-time.js';

// Claude Code (`-p --output-format json`, or `stream-json --verbose`) reports a failed run in its
// final `result` object: `is_error: true`, `api_error_status` (429, 401, 529…; null when no request
// was made) and a message in `result`, while `subtype` stays "success". Its own messages also come
// as an assistant message of model "<synthetic>" with an `error` code, and with a claude.ai login,
// as `rate_limit_event` lines whose `resetsAt` (epoch seconds) is exact. These are the only places
// read: the model's text and tool results (the transcript) never are.

// Not a limit any wait lifts: usage switched off, or money needed. A person must act.
const ACCOUNT = /usage allocation has been disabled|disabled for your org|seat type doesn't include|out of usage credits|org is out of usage|credit balance is too low|usage credits are required/i;
const LOGIN = /not logged in|please run \/login|invalid api key|fix external api key|oauth token (?:has expired|has been revoked)|authentication_error|invalid bearer token/i;
const LIMIT = /usage limit reached|hit your (?:[\w'’ ]+ )?limit|rate limit/i;
// Claude Code says so itself when a 429 is the service shedding load, not the account's limit.
const NOT_A_LIMIT = /not your usage limit/i;
const SERVICE = /overloaded|\b5\d\d\b|server-side issue|request timed out|unable to connect to api|connection (?:refused|error|reset)|fetch failed|socket hang up|econn\w+|etimedout|network/i;

/** Classify a failed Claude Code attempt (see classifyFailure). */
export function claudeFailure(attempt: ReadAttempt, context: FailureContext): Failure {
  const { events } = attempt;
  const result = events.findLast((e) => e.type === 'result');
  // A run that finished without an error said something; that it was no valid reply is the agent's.
  if (result && result.is_error !== true) return { kind: 'invalid' };
  const rejected = events.findLast((e) => e.type === 'rate_limit_event' && stringField(e.rate_limit_info, 'status') === 'rejected');
  const synthetic = events.findLast((e) => e.type === 'assistant' && stringField(e.message, 'model') === '<synthetic>');
  // Cut off while Claude Code was still retrying (a timeout): its last api_retry says why.
  const retry = result ? undefined : events.findLast((e) => e.type === 'system' && e.subtype === 'api_retry');
  const text = (stringField(result, 'result') ?? syntheticText(synthetic) ?? retryText(retry) ?? '').trim();
  const status = numberField(result, 'api_error_status') ?? numberField(retry, 'error_status');
  const code = stringField(synthetic, 'error');
  const detail = text || (status ? `API error ${status}` : '');
  const cli = 'claude';

  const resetsAt = numberField(isObject(rejected) ? rejected.rate_limit_info : undefined, 'resetsAt');
  const shownReset = resetIn(text, context);
  if (ACCOUNT.test(text) && !shownReset) return { kind: 'login', cli, detail, hint: `${accountHint(text)} ${LOGIN_HINTS.claude}` };
  if (LOGIN.test(text) || status === 401 || code === 'authentication_failed') return { kind: 'login', cli, detail, hint: LOGIN_HINTS.claude };
  if (NOT_A_LIMIT.test(text)) return { kind: 'transient', cli, detail };
  if (status === 429 || code === 'rate_limit' || LIMIT.test(text) || (rejected && !result)) {
    return { kind: 'usage_limit', cli, detail: detail || 'rate limit rejected', resetAt: resetsAt !== undefined ? fromEpoch(resetsAt) : shownReset };
  }
  if ((status !== undefined && status >= 500) || code === 'server_error' || SERVICE.test(text)) return { kind: 'transient', cli, detail };
  return { kind: 'invalid' };
}

function retryText(retry: Record<string, unknown> | undefined): string | undefined {
  if (!retry) return undefined;
  const status = numberField(retry, 'error_status');
  return `still retrying the API request (attempt ${String(retry.attempt)}) after ${stringField(retry, 'error') ?? 'an error'}${status ? ` (${status})` : ''}`;
}

function syntheticText(message: Record<string, unknown> | undefined): string | undefined {
  const content = isObject(message?.message) ? message.message.content : undefined;
  if (!Array.isArray(content)) return undefined;
  return content.map((block) => stringField(block, 'text') ?? '').join('\n');
}

// "Claude AI usage limit reached|1745000000" (older versions), "… · resets 7:12pm (Europe/Vilnius)",
// "… · resets Nov 26, 2:07pm (America/Recife)", "… · resets Apr 23 at 4pm (America/Recife)".
function resetIn(text: string, context: FailureContext): Date | null {
  const epoch = /\|(\d{10})\s*$/.exec(text);
  if (epoch) return fromEpoch(epoch[1] as string);
  const shown = /\bresets\s+(?:at\s+)?(.+?\))/i.exec(text) ?? /\bresets\s+(?:at\s+)?([^·]+?)\s*(?:·|$)/i.exec(text);
  return shown ? parseResetText(shown[1] as string, context.timeZone, context.now) : null;
}

function accountHint(text: string): string {
  if (/admin|org|seat/i.test(text)) return 'An admin of the Claude account must allow more usage (/usage-credits), or use another login.';
  return 'The Claude account needs credits or extra usage, or use another login.';
}
