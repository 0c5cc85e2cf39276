import { isObject } from './json.js';
import { numberField, stdoutEvents, stringField } from './events.js';

/**
 * What one attempt spent, as its CLI reported it. Tokens in one meaning for every CLI:
 * `inputTokens` every prompt token, cached ones included; `cachedInputTokens` those read from a
 * cache; `outputTokens` every generated token, reasoning included; `totalTokens` the two summed.
 * `costUsd` only where the CLI prices the run (Claude Code).
 */
export interface Usage {
  costUsd?: number;
  inputTokens?: number;
  cachedInputTokens?: number;
  outputTokens?: number;
  totalTokens?: number;
}

/**
 * The usage an attempt's stdout reports, failed and limited attempts included; undefined when it
 * holds none (no envelope, or a run cut off before its totals). Reads the CLI's final totals
 * only, never a stream's running figures, so nothing is counted twice. Pure.
 */
export function attemptUsage(stdout: string): Usage | undefined {
  return usageOf(stdoutEvents(stdout));
}

/** `attemptUsage` for stdout's JSON objects found already (stdoutEvents). */
export function usageOf(events: Record<string, unknown>[]): Usage | undefined {
  return claudeUsage(events) ?? codexUsage(events) ?? geminiUsage(events);
}

// Claude Code: the final result object's total_cost_usd and usage (its assistant messages carry
// per-request figures taken before the request ended, so they are not added up).
function claudeUsage(events: Record<string, unknown>[]): Usage | undefined {
  const result = events.findLast((e) => e.type === 'result' && ('total_cost_usd' in e || 'usage' in e || 'modelUsage' in e));
  if (!result) return undefined;
  const usage = result.usage;
  const models = isObject(result.modelUsage) ? Object.values(result.modelUsage).filter(isObject) : [];
  const fromModels = (key: string) => (models.length > 0 ? sum(models.map((m) => numberField(m, key))) : undefined);
  const fresh = numberField(usage, 'input_tokens') ?? fromModels('inputTokens');
  const read = numberField(usage, 'cache_read_input_tokens') ?? fromModels('cacheReadInputTokens');
  const written = numberField(usage, 'cache_creation_input_tokens') ?? fromModels('cacheCreationInputTokens');
  const output = numberField(usage, 'output_tokens') ?? fromModels('outputTokens');
  return figures({
    costUsd: numberField(result, 'total_cost_usd') ?? fromModels('costUSD'),
    inputTokens: sum([fresh, read, written]),
    cachedInputTokens: read,
    outputTokens: output,
  });
}

// Codex: turn.completed.usage holds the thread's running total (cumulative since the thread
// started, all model requests of the turn included), so the last one is the attempt's.
function codexUsage(events: Record<string, unknown>[]): Usage | undefined {
  const completed = events.findLast((e) => e.type === 'turn.completed' && isObject(e.usage));
  if (!completed) return undefined;
  return figures({
    inputTokens: numberField(completed.usage, 'input_tokens'),
    cachedInputTokens: numberField(completed.usage, 'cached_input_tokens'),
    // OpenAI counts reasoning tokens within output_tokens.
    outputTokens: numberField(completed.usage, 'output_tokens'),
  });
}

// Gemini CLI: -o json `stats.models.<model>.tokens` (prompt includes cached; candidates and
// thoughts are generated); -o stream-json the closing result's `stats` (total_tokens includes
// thoughts, which it does not list). Every model counts: the router's calls are billed too.
function geminiUsage(events: Record<string, unknown>[]): Usage | undefined {
  const streamed = events.findLast((e) => e.type === 'result' && stringField(e, 'status') !== undefined && isObject(e.stats));
  if (streamed && isObject(streamed.stats)) {
    const input = numberField(streamed.stats, 'input_tokens');
    const total = numberField(streamed.stats, 'total_tokens');
    return figures({
      inputTokens: input,
      cachedInputTokens: numberField(streamed.stats, 'cached'),
      outputTokens: input !== undefined && total !== undefined ? total - input : numberField(streamed.stats, 'output_tokens'),
    });
  }
  const envelope = events.find((e) => isObject(e.stats) && isObject(e.stats.models));
  const models = envelope && isObject(envelope.stats) && isObject(envelope.stats.models) ? Object.values(envelope.stats.models).filter(isObject) : [];
  const tokens = models.map((m) => m.tokens).filter(isObject);
  if (tokens.length === 0) return undefined;
  const total = (key: string) => sum(tokens.map((t) => numberField(t, key)));
  return figures({ inputTokens: total('prompt'), cachedInputTokens: total('cached'), outputTokens: sum([total('candidates'), total('thoughts')]) });
}

function sum(values: Array<number | undefined>): number | undefined {
  const known = values.filter((v): v is number => v !== undefined);
  return known.length > 0 ? known.reduce((a, b) => a + b, 0) : undefined;
}

// Drops unknown figures and adds the total, so a Usage never holds an undefined key.
function figures(usage: Usage): Usage | undefined {
  const all: Usage = { ...usage, totalTokens: sum([usage.inputTokens, usage.outputTokens]) };
  const known = Object.fromEntries(Object.entries(all).filter(([, v]) => v !== undefined)) as Usage;
  return Object.keys(known).length > 0 ? known : undefined;
}
