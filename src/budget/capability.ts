import type { Capability, OpenCapability } from '../loop/context.js';
import { formatSpend, Spend } from '../spend.js';

/**
 * Spend and budget (SPEC §4b): every attempt's spend, as its attempt_finished event reports it,
 * added up for this run; the run stops between steps once it reaches max_cost_usd or max_tokens,
 * never during one: the step in progress finishes and its paid reply reaches the Manager.
 */
export const budget: OpenCapability = (): Capability => {
  const spend = new Spend();
  return {
    event(event) {
      if (event.type === 'attempt_finished') spend.add(event.usage as Parameters<Spend['add']>[0]);
    },
    beforeStep(board, settings) {
      const reached = spend.reached(settings);
      if (!reached) return undefined;
      return {
        message:
          `Stopped: this run's agents have spent ${formatSpend(spend.total)}, reaching ${reached}, the cap on this run's spend (earlier runs of the board are not counted: \`report --all\` totals them all). ` +
          `Every reply paid for reached the Manager and its answer is written; ${String(board.current)} is current. Raise the budget (or pass --max-cost) and run again to carry on.`,
        // Carrying on after an edit would stop again after the next attempt, having spent more.
        edit: `this run has already reached ${reached}; raise it to carry on (a --max-cost given on the command line cannot be raised by an edit: restart the run).`,
      };
    },
    summary: () => formatSpend(spend.total),
  };
};
