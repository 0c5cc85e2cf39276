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

/** The sum of the figures that are known; undefined when none is. */
export function sumKnown(values: Array<number | undefined>): number | undefined {
  const known = values.filter((v): v is number => v !== undefined);
  return known.length > 0 ? known.reduce((a, b) => a + b, 0) : undefined;
}

/**
 * A Usage with its unknown figures dropped and its total added
 * (never an undefined key); undefined when nothing is known.
 */
export function usageFigures(usage: Usage): Usage | undefined {
  const all: Usage = { ...usage, totalTokens: sumKnown([usage.inputTokens, usage.outputTokens]) };
  const known = Object.fromEntries(Object.entries(all).filter(([, v]) => v !== undefined)) as Usage;
  return Object.keys(known).length > 0 ? known : undefined;
}
