import { TimeLimitError } from '../errors.js';
import type { Capability, OpenCapability } from '../loop/context.js';
import { sleepUntil, systemClock } from '../loop/world.js';
import { formatDuration } from '../util/duration.js';
import { maxTimeMs } from './settings.js';

/**
 * A batch job's time budget (--max-time, supervisor.max_time; SPEC §5c): once it is spent, the
 * run is asked to stop like an interrupt — the running agent's group stopped, the board
 * unchanged, the lock released — and ends with exit 124. It counts from the command's start.
 */
export const timeLimit: OpenCapability = (kind, options): Capability | undefined => {
  if (kind !== 'run') return undefined;
  const clock = options.seams?.clock ?? systemClock;
  const started = clock.now().getTime();
  let deadline: Date | undefined;
  return {
    async runStarted({ settings, stop, closed }) {
      const ms = maxTimeMs(settings.supervisor);
      if (ms === null) return;
      const until = started + ms;
      deadline = new Date(until);
      void sleepUntil({ clock, stop: { interrupt: closed, force: closed } }, until).then(() => {
        if (closed.aborted) return;
        stop(
          new TimeLimitError(
            `The run reached its time limit of ${formatDuration(ms)} (--max-time or supervisor.max_time): ` +
              `whatever was running was stopped. The board is unchanged; run again to resume at the current task.`,
          ),
        );
      });
    },
    deadline: () => deadline,
  };
};
