import { isObject, type ParsedOutput } from './json.js';

/**
 * What an agent CLI's own JSON envelope says: the model's final text (or an object
 * reply it carries), or the error it reports. Exit codes of these CLIs lie both ways,
 * so the envelope is read first.
 */
export type Unwrapped = { text: string } | { reply: Record<string, unknown> } | { error: string };

/** A known agent CLI's output format. */
export interface Wrapper {
  name: 'claude' | 'codex' | 'gemini';
  /** Unwrap stdout, or return null when stdout is not in this CLI's format. */
  unwrap(out: ParsedOutput): Unwrapped | null;
}

/** Claude Code `-p --output-format json` (one result object, or an array of messages with --verbose) and `stream-json` (JSONL). */
const claude: Wrapper = {
  name: 'claude',
  unwrap(out) {
    const whole = out.whole;
    const candidates = Array.isArray(whole) ? whole : isObject(whole) ? [whole] : (out.lines ?? []);
    const result = candidates.filter(isObject).findLast((m) => m.type === 'result');
    if (!result || (!('result' in result) && !('structured_output' in result) && !('is_error' in result))) return null;
    if (result.is_error === true) {
      // API failures and a missing login come as "subtype": "success" with is_error: true; only
      // a subtype other than success adds anything.
      const kind = typeof result.subtype === 'string' && result.subtype !== 'success' ? ` (${result.subtype})` : '';
      const said = String(result.result ?? '').trim() || (result.api_error_status ? `API status ${String(result.api_error_status)}` : 'no message');
      return { error: `reported an error as Claude Code${kind}: ${said.slice(0, 300)}` };
    }
    if (isObject(result.structured_output)) return { reply: result.structured_output };
    if (typeof result.result === 'string') return { text: result.result };
    return { error: `printed a Claude Code result without result text (subtype ${String(result.subtype)})` };
  },
};

/** Codex `exec --json`: a JSONL event stream whose last completed agent_message holds the final text. */
const codex: Wrapper = {
  name: 'codex',
  unwrap(out) {
    // A stdout that is one JSON object is a stream of one event.
    const whole = out.whole;
    const events = isObject(whole) ? [whole] : out.lines;
    // Codex always starts with thread.started; a bare "error" event is not enough (opencode's
    // JSONL stream has one too).
    if (!events || !events.some((e) => typeof e.type === 'string' && /^(thread|turn|item)\./.test(e.type))) return null;
    const message = events
      .filter((e) => e.type === 'item.completed' && isObject(e.item))
      .map((e) => e.item as Record<string, unknown>)
      .findLast((item) => item.type === 'agent_message' || item.item_type === 'assistant_message');
    if (message && typeof message.text === 'string') return { text: message.text };
    const failure = events.findLast((e) => e.type === 'turn.failed' || e.type === 'error');
    if (failure) {
      const error = isObject(failure.error) ? failure.error.message : failure.message;
      return { error: `reported an error as Codex: ${String(error ?? 'turn failed').slice(0, 300)}` };
    }
    return { error: 'finished its Codex event stream without an agent message' };
  },
};

/**
 * Gemini CLI `-p -o json`: one (pretty-printed) object whose `response` holds the final text; or
 * `-o stream-json`: JSONL from an `init` event to a `result` event, the model's text arriving in
 * `message` deltas.
 */
const gemini: Wrapper = {
  name: 'gemini',
  unwrap(out) {
    const whole = out.whole;
    if (!isObject(whole)) return geminiStream(out.lines);
    // A reply of our own format that happens to have a `response` field is not an envelope.
    if ('status' in whole || !('response' in whole || ('error' in whole && 'stats' in whole) || ('session_id' in whole && 'stats' in whole))) return null;
    if (isObject(whole.error)) return geminiError(whole.error);
    if (typeof whole.response === 'string') return { text: whole.response };
    return null;
  },
};

function geminiError(error: Record<string, unknown>): Unwrapped {
  return { error: `reported an error as Gemini CLI: ${String(error.message ?? 'no message').slice(0, 300)}` };
}

function geminiStream(events: Record<string, unknown>[] | null): Unwrapped | null {
  if (!events || !events.some((e) => e.type === 'init' && 'session_id' in e)) return null;
  const result = events.findLast((e) => e.type === 'result');
  if (isObject(result?.error)) return geminiError(result.error);
  // The final message: the assistant's deltas after the last tool call.
  const lastTool = events.findLastIndex((e) => e.type === 'tool_use' || e.type === 'tool_result');
  const parts = events.slice(lastTool + 1).filter((e) => e.type === 'message' && e.role === 'assistant' && typeof e.content === 'string');
  if (parts.length === 0) return { error: 'finished its Gemini CLI event stream without a model message' };
  return { text: parts.map((e) => e.content as string).join('') };
}

/** The known wrappers, in the order `output: auto` tries them. */
export const WRAPPERS: readonly Wrapper[] = [claude, codex, gemini];
