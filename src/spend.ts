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

/** Add one attempt's usage to a total (failed and limited attempts too). */
export function addUsage(total: SpendTotal, usage: Usage | undefined): void {
  if (!usage) return;
  total.priced++;
  total.costUsd += usage.costUsd ?? 0;
  total.tokens += usage.totalTokens ?? (usage.inputTokens ?? 0) + (usage.outputTokens ?? 0);
}

/** The spend of a run so far, checked against its budget after every attempt. */
export class Spend {
  readonly total: SpendTotal = emptySpend();

  /** Count an attempt's usage (failed and limited attempts too). */
  add(usage: Usage | undefined): void {
    addUsage(this.total, usage);
  }

  /** Which budget the run has reached, as a phrase, or undefined. */
  reached(budget: { maxCostUsd: number | null; maxTokens: number | null }): string | undefined {
    if (budget.maxCostUsd !== null && this.total.costUsd >= budget.maxCostUsd) return `max_cost_usd ($${budget.maxCostUsd})`;
    if (budget.maxTokens !== null && this.total.tokens >= budget.maxTokens) return `max_tokens (${budget.maxTokens})`;
    return undefined;
  }
}

/** A spend as a person reads it: `$1.23, 45.6k tokens`; empty when nothing was reported. */
export function formatSpend(total: Pick<SpendTotal, 'costUsd' | 'tokens'>): string {
  const parts: string[] = [];
  if (total.costUsd > 0) parts.push(`$${total.costUsd.toFixed(total.costUsd < 1 ? 3 : 2)}`);
  if (total.tokens > 0) parts.push(`${formatCount(total.tokens)} tokens`);
  return parts.join(', ');
}
