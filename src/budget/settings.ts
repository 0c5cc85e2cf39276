import type { BoardSettings } from '../board/read-board.js';

/**
 * Budgets (`supervisor.max_cost_usd` or --max-cost, `max_tokens`): the run stops (exit 5) after the
 * attempt that reaches one.
 */
export interface BudgetSettings {
  maxCostUsd: number | null;
  maxTokens: number | null;
}

/** The budgets as set (pure); the schema (settings.schema.json here) has checked both are numbers. */
export function budgetSettings(supervisor: BoardSettings): BudgetSettings {
  return {
    maxCostUsd: (supervisor.max_cost_usd as number | undefined) ?? null,
    maxTokens: (supervisor.max_tokens as number | undefined) ?? null,
  };
}
