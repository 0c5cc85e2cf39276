import type { InvocationTransform } from '../agent/prepare.js';
import { withCallOptions } from '../agents/call-options.js';
import type { BoardSettings } from '../board/read-board.js';
import { budgetSettings } from './settings.js';

/**
 * The per-call budget: a CLI that takes a spending cap for one call (agents/call-options.ts) is
 * handed this run's budget left, after the options put into the argv before it.
 */
export const callBudgetOption: InvocationTransform = {
  plan(planned, { run, settings, role, manager }) {
    const budgetUsd = callBudget(callBudgetUsd(run, settings, manager));
    const { invocation } = planned;
    const handed = withCallOptions(invocation.args, role.command, { budgetUsd }, planned.added);
    return {
      ...planned,
      invocation: { ...invocation, args: handed.args },
      ...(handed.added && { added: handed.added }),
    };
  },
};

/**
 * The most one call of this agent run may spend: the run's budget left (max_cost_usd less what
 * this run spent so far), read once per agent run so that every retry is handed the same. The
 * Manager may spend up to the whole budget: the step in progress finishes, and the worker's paid
 * reply is not thrown away (SPEC §4b). Undefined without a budget.
 */
export function callBudgetUsd(
  ctx: { spend?: { total: { costUsd: number } } },
  settings: { supervisor: BoardSettings },
  manager: boolean,
): number | undefined {
  const { maxCostUsd } = budgetSettings(settings.supervisor);
  if (maxCostUsd === null) return undefined;
  return manager ? maxCostUsd : maxCostUsd - (ctx.spend?.total.costUsd ?? 0);
}

/** The budget one call may spend: what is left, cut down to a hundredth of a cent; undefined when none is left. */
export function callBudget(left: number | undefined): number | undefined {
  if (left === undefined) return undefined;
  const cut = Math.floor(left * 10_000) / 10_000;
  return cut > 0 ? cut : undefined;
}
