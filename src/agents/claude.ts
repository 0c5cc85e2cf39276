import { firstLine, isObject, numberField, stringField } from '../reply/json.js';
import { fromEpoch, parseResetText } from '../reply/reset-time.js';
import { sumKnown, usageFigures } from '../reply/usage.js';
import { reported, toolCall, wholeText, type AgentCli, type FailureContext, type TextRendering } from './adapter.js';

// Claude Code (`-p --output-format json`, or `stream-json --verbose`) reports a failed run in its
// final `result` object: `is_error: true`, `api_error_status` (429, 401, 529…; null when no request
// was made) and a message in `result`, while `subtype` stays "success". Its own messages also come
// as an assistant message of model "<synthetic>" with an `error` code, and with a claude.ai login,
// as `rate_limit_event` lines whose `resetsAt` (epoch seconds) is exact. These are the only places
// read: the model's text and tool results (the transcript) never are.

// Not a limit any wait lifts: usage switched off, or money needed. A person must act.
const ACCOUNT = new RegExp(
  String.raw`usage allocation has been disabled|disabled for your org|seat type doesn't include|` +
    String.raw`out of usage credits|org is out of usage|credit balance is too low|usage credits are required`,
  'i',
);
const LOGIN = new RegExp(
  String.raw`not logged in|please run \/login|invalid api key|fix external api key|` +
    String.raw`oauth token (?:has expired|has been revoked)|authentication_error|invalid bearer token`,
  'i',
);
const LIMIT = /usage limit reached|hit your (?:[\w'’ ]+ )?limit|rate limit/i;
// Claude Code says so itself when a 429 is the service shedding load, not the account's limit.
const NOT_A_LIMIT = /not your usage limit/i;
const SERVICE = new RegExp(
  String.raw`overloaded|\b5\d\d\b|server-side issue|request timed out|unable to connect to api|` +
    String.raw`connection (?:refused|error|reset)|fetch failed|socket hang up|econn\w+|etimedout|network`,
  'i',
);
const LOGIN_HINT =
  "Run `claude` once and log in with /login, or set ANTHROPIC_API_KEY (in the environment or the role's env:).";

/**
 * Claude Code: `claude -p --output-format json` (one result object,
 * or an array of messages with --verbose) or `stream-json` (JSONL).
 */
export const claude: AgentCli = {
  name: 'claude',
  recognise: (program) => program === 'claude' || program === '@anthropic-ai/claude-code',
  silent: ['user', 'stream_event'],
  login: {
    folder: [
      ['CLAUDE_CONFIG_DIR', ''],
      ['HOME', '.claude'],
    ],
    keys: ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN', 'CLAUDE_CODE_OAUTH_TOKEN'],
  },
  loginHint: LOGIN_HINT,
  // `--json-schema`: a StructuredOutput tool the model must call, checked by Claude Code, the object
  // in the result's structured_output; `--max-budget-usd`: the call stops once it has spent that much.
  calls: { schema: { option: '--json-schema', file: false, strict: false }, budget: '--max-budget-usd' },
  preset: 'claude',
  setup:
    'Install Claude Code (npm install -g @anthropic-ai/claude-code) and log in once by running `claude`, ' +
    'or set ANTHROPIC_API_KEY.',

  unwrap(out) {
    const whole = out.whole;
    const candidates = Array.isArray(whole) ? whole : isObject(whole) ? [whole] : (out.lines ?? []);
    const result = candidates.filter(isObject).findLast((m) => m.type === 'result');
    if (!result || (!('result' in result) && !('structured_output' in result) && !('is_error' in result))) return null;
    if (result.is_error === true) {
      // API failures and a missing login come as "subtype": "success" with is_error: true; only
      // a subtype other than success adds anything.
      const kind = typeof result.subtype === 'string' && result.subtype !== 'success' ? ` (${result.subtype})` : '';
      // A run stopped by its own limits (error_max_structured_output_retries, error_max_budget_usd)
      // says why in `errors` only.
      const said =
        String(result.result ?? '').trim() ||
        (Array.isArray(result.errors) ? result.errors.map(String).join('; ') : '') ||
        (result.api_error_status ? `API status ${String(result.api_error_status)}` : 'no message');
      return reported(`Claude Code${kind}`, said);
    }
    if (isObject(result.structured_output)) return { reply: result.structured_output };
    if (typeof result.result === 'string') return { text: result.result };
    return { error: `printed a Claude Code result without result text (subtype ${String(result.subtype)})` };
  },

  activity: (event, cwd) => shown(event, cwd, firstLine, false),
  transcript: (event, cwd) => shown(event, cwd, wholeText, true),

  // The final result object's total_cost_usd and usage (its assistant messages carry per-request
  // figures taken before the request ended, so they are not added up).
  usage(events) {
    const result = events.findLast(
      (e) => e.type === 'result' && ('total_cost_usd' in e || 'usage' in e || 'modelUsage' in e),
    );
    if (!result) return undefined;
    const usage = result.usage;
    const models = isObject(result.modelUsage) ? Object.values(result.modelUsage).filter(isObject) : [];
    const fromModels = (key: string) =>
      models.length > 0 ? sumKnown(models.map((m) => numberField(m, key))) : undefined;
    const fresh = numberField(usage, 'input_tokens') ?? fromModels('inputTokens');
    const read = numberField(usage, 'cache_read_input_tokens') ?? fromModels('cacheReadInputTokens');
    const written = numberField(usage, 'cache_creation_input_tokens') ?? fromModels('cacheCreationInputTokens');
    return usageFigures({
      costUsd: numberField(result, 'total_cost_usd') ?? fromModels('costUSD'),
      inputTokens: sumKnown([fresh, read, written]),
      cachedInputTokens: read,
      outputTokens: numberField(usage, 'output_tokens') ?? fromModels('outputTokens'),
    });
  },

  failure(attempt, context) {
    const { events } = attempt;
    const result = events.findLast((e) => e.type === 'result');
    // A run that finished without an error said something; that it was no valid reply is the agent's.
    // So did one stopped by its own limits: a schema never met in its turns, its --max-budget-usd.
    if (result && (result.is_error !== true || /^error_max_/.test(stringField(result, 'subtype') ?? '')))
      return { kind: 'invalid' };
    const rejected = events.findLast(
      (e) => e.type === 'rate_limit_event' && stringField(e.rate_limit_info, 'status') === 'rejected',
    );
    const synthetic = events.findLast(
      (e) => e.type === 'assistant' && stringField(e.message, 'model') === '<synthetic>',
    );
    // Cut off while Claude Code was still retrying (a timeout): its last api_retry says why.
    const retry = result ? undefined : events.findLast((e) => e.type === 'system' && e.subtype === 'api_retry');
    const text = (stringField(result, 'result') ?? syntheticText(synthetic) ?? retryText(retry) ?? '').trim();
    const status = numberField(result, 'api_error_status') ?? numberField(retry, 'error_status');
    const code = stringField(synthetic, 'error');
    const detail = text || (status ? `API error ${status}` : '');
    const cli = 'claude';
    // The structured signal decides on its own, whatever the words (they change between versions).
    const resetsAt = numberField(isObject(rejected) ? rejected.rate_limit_info : undefined, 'resetsAt');
    if (resetsAt !== undefined)
      return { kind: 'usage_limit', cli, detail: detail || 'rate limit rejected', resetAt: fromEpoch(resetsAt) };
    const shownReset = resetIn(text, context);
    if (ACCOUNT.test(text) && !shownReset)
      return { kind: 'login', cli, detail, hint: `${accountHint(text)} ${LOGIN_HINT}` };
    if (LOGIN.test(text) || status === 401 || code === 'authentication_failed')
      return { kind: 'login', cli, detail, hint: LOGIN_HINT };
    if (NOT_A_LIMIT.test(text)) return { kind: 'transient', cli, detail };
    if (status === 429 || code === 'rate_limit' || LIMIT.test(text) || (rejected && !result))
      return { kind: 'usage_limit', cli, detail: detail || 'rate limit rejected', resetAt: shownReset };
    if ((status !== undefined && status >= 500) || code === 'server_error' || SERVICE.test(text))
      return { kind: 'transient', cli, detail };
    return { kind: 'invalid' };
  },
};

// What an event shows: the status line takes the message's last text or tool call, a transcript
// (`every`) all of them, one after the other.
function shown(
  event: Record<string, unknown>,
  cwd: string | undefined,
  text: TextRendering,
  every: boolean,
): string | undefined | null {
  if (event.type === 'assistant' && isObject(event.message) && Array.isArray(event.message.content)) {
    const blocks = event.message.content.filter(isObject).filter((b) => b.type === 'text' || b.type === 'tool_use');
    const render = (block: Record<string, unknown> | undefined) =>
      block?.type === 'tool_use'
        ? toolCall(stringField(block, 'name') ?? 'tool', block.input, cwd)
        : text(stringField(block, 'text'));
    return every ? blocks.map(render).filter(Boolean).join('\n') : render(blocks.at(-1));
  }
  if (event.type === 'result' && 'is_error' in event)
    return event.is_error === true ? text(stringField(event, 'result')) : undefined;
  if (event.type === 'rate_limit_event')
    return stringField(event.rate_limit_info, 'status') === 'rejected' ? 'Usage limit reached' : undefined;
  if (event.type === 'system') return event.subtype === 'api_retry' ? retryLine(event) : undefined;
  return null;
}

// {"type":"system","subtype":"api_retry","attempt":1,"max_retries":10,"retry_delay_ms":5000,
//  "error_status":429,"error":"rate_limit"}
function retryLine(event: Record<string, unknown>): string {
  const attempt =
    typeof event.attempt === 'number'
      ? ` (attempt ${event.attempt}${typeof event.max_retries === 'number' ? `/${event.max_retries}` : ''})`
      : '';
  const why = [
    stringField(event, 'error'),
    typeof event.error_status === 'number' ? String(event.error_status) : undefined,
  ]
    .filter(Boolean)
    .join(' ');
  return `Retrying the API request${attempt}${why ? `: ${why}` : ''}`;
}

function retryText(retry: Record<string, unknown> | undefined): string | undefined {
  if (!retry) return undefined;
  const status = numberField(retry, 'error_status');
  return (
    `still retrying the API request (attempt ${String(retry.attempt)}) after ` +
    `${stringField(retry, 'error') ?? 'an error'}${status ? ` (${status})` : ''}`
  );
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
  if (/admin|org|seat/i.test(text))
    return 'An admin of the Claude account must allow more usage (/usage-credits), or use another login.';
  return 'The Claude account needs credits or extra usage, or use another login.';
}
