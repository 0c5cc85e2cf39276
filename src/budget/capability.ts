import { budgetSettings, type BudgetSettings } from './settings.js';
import { GuardError } from '../errors.js';
import type { Capability, OpenCapability } from '../loop/context.js';
import { addUsage, emptySpend, formatSpend, type SpendTotal } from '../spend.js';

/**
 * Spend and budget (SPEC §4b): every attempt's spend, as its attempt_finished event reports it,
 * added up for this run (not the board's earlier ones); the run stops between steps once it
 * reaches max_cost_usd or max_tokens, never during one: the step's paid reply reaches the Manager.
 */
export const budget: OpenCapability = (): Capability => {
  const spent = emptySpend();
  return {
    event(event) {
      if (event.type === 'attempt_finished') addUsage(spent, event.usage);
    },
    beforeStep(board, settings) {
      const cap = reached(spent, budgetSettings(settings.supervisor));
      if (!cap) return undefined;
      return {
        message:
          `Stopped: this run's agents have spent ${formatSpend(spent)}, reaching ${cap}, the cap on this run's spend ` +
          `(earlier runs of the board are not counted: \`report --all\` totals them all). ` +
          `Every reply paid for reached the Manager and its answer is written; ${String(board.current)} is current. ` +
          `Raise the budget (or pass --max-cost) and run again to carry on.`,
        // Carrying on after an edit would stop again after the next attempt, having spent more.
        edit:
          `this run has already reached ${cap}; raise it to carry on ` +
          `(a --max-cost given on the command line cannot be raised by an edit: restart the run).`,
      };
    },
    // No reply came and the budget is reached (a call stopped at its --max-budget-usd): a retry
    // would only spend past it, and stopping throws no paid reply away (SPEC §4b). A usage limit
    // or a missing login is still what the person hears of.
    async afterFailure({ ctx, failure, issue, invocation, task, logTask, settings }) {
      const cap =
        failure.kind === 'usage_limit' || failure.kind === 'login'
          ? undefined
          : reached(spent, budgetSettings(settings.supervisor));
      if (!cap) return undefined;
      const message =
        `Stopped: this run's agents have spent ${formatSpend(spent)}, reaching ${cap}, and ${invocation.role} ` +
        `gave no reply for ${task} within it (${issue}); a retry would spend past it. The board is unchanged. ` +
        'Raise the budget (or pass --max-cost) and run again to resume at this task.';
      ctx.world.log({
        kind: 'Halt',
        agent: invocation.role,
        task: logTask,
        issue: message,
        action: 'Stopping (exit 5); the board is unchanged',
      });
      throw new GuardError(message);
    },
    spent: () => spent,
    summary: () => formatSpend(spent),
  };
};

// Which budget the run has reached, as a phrase, or undefined.
function reached(total: SpendTotal, budget: BudgetSettings): string | undefined {
  if (budget.maxCostUsd !== null && total.costUsd >= budget.maxCostUsd) return `max_cost_usd ($${budget.maxCostUsd})`;
  if (budget.maxTokens !== null && total.tokens >= budget.maxTokens) return `max_tokens (${budget.maxTokens})`;
  return undefined;
}
