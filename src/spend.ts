import type { Usage } from './reply/usage.js';
import { formatCount } from './util/size.js';

/** What attempts spent, added up: dollars where the CLI prices its runs, tokens where it counts them. */
export interface SpendTotal {
  costUsd: number;
  tokens: number;
  /** Attempts that reported anything. */
  priced: number;
}

/** A total with nothing spent yet. */
export function emptySpend(): SpendTotal {
  return { costUsd: 0, tokens: 0, priced: 0 };
}

/** Whether a reported figure can be a spend: a finite number, zero or more. */
function isAmount(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}

/**
 * An attempt's usage with every figure that cannot be a spend (negative, infinite, not a number)
 * dropped, and those figures named: a negative cost must never cancel what was spent (pure).
 */
export function checkUsage(usage: Usage | undefined): { usage: Usage | undefined; ignored: string[] } {
  if (!usage) return { usage, ignored: [] };
  const bad = (value: unknown) => value !== undefined && !isAmount(value);
  const entries = Object.entries(usage) as Array<[keyof Usage, unknown]>;
  const ignored = entries.filter(([, value]) => bad(value)).map(([key, value]) => `${key} ${String(value)}`);
  const kept = Object.fromEntries(entries.filter(([, value]) => isAmount(value))) as Usage;
  // A total summed from a dropped figure is no total.
  if (bad(usage.inputTokens) || bad(usage.outputTokens)) delete kept.totalTokens;
  return { usage: Object.keys(kept).length > 0 ? kept : undefined, ignored };
}

/**
 * Add one attempt's usage to a total (failed and limited attempts too); figures that cannot be a spend are never added.
 */
export function addUsage(total: SpendTotal, usage: Usage | undefined): void {
  const checked = checkUsage(usage).usage;
  if (!checked) return;
  total.priced++;
  total.costUsd += checked.costUsd ?? 0;
  total.tokens += checked.totalTokens ?? (checked.inputTokens ?? 0) + (checked.outputTokens ?? 0);
}

/** A spend as a person reads it: `$1.23, 45.6k tokens`; empty when nothing was reported. */
export function formatSpend(total: Pick<SpendTotal, 'costUsd' | 'tokens'>): string {
  const parts: string[] = [];
  if (total.costUsd > 0) parts.push(`$${total.costUsd.toFixed(total.costUsd < 1 ? 3 : 2)}`);
  if (total.tokens > 0) parts.push(`${formatCount(total.tokens)} tokens`);
  return parts.join(', ');
}
