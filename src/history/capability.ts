import type { SupervisorEvent } from '../event-types.js';
import type { Capability, OpenCapability } from '../loop/context.js';
import type { StepHistory } from './step-history.js';

/**
 * The Manager's `history` (SPEC §5b): the board's recent steps — from the tail of its event log
 * at the run's start, then this run's events as they come — folded when the Manager is asked.
 */
export const history: OpenCapability = (kind): Capability | undefined => {
  if (kind !== 'run') return undefined;
  let steps: StepHistory | undefined;
  // This run's events recorded before the tail was read.
  const early: SupervisorEvent[] = [];
  return {
    event(event) {
      if (steps) steps.record(event);
      else early.push(event);
    },
    async runStarted({ ctx }) {
      const { StepHistory } = await import('./step-history.js');
      steps = StepHistory.fromBoard(ctx.board.dir, ctx.runId, ctx.events.capabilityEvents);
      for (const event of early.splice(0)) steps.record(event);
    },
    managerInputs: () => ({ history: steps?.recent() ?? [] }),
  };
};
