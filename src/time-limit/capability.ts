import { SupervisorError, TimeLimitError } from '../errors.js';
import type { Capability, OpenCapability } from '../loop/context.js';
import { sleepUntil, systemClock } from '../loop/world.js';
import { formatDuration } from '../util/duration.js';
import { maxTimeMs } from './settings.js';

/**
 * A batch job's time budget (--max-time, supervisor.max_time; SPEC §5c): once it is spent, the
 * run is asked to stop like an interrupt — the running agent's group stopped, the board
 * unchanged, the lock released — and ends with exit 124. It counts from the command's start.
 * Its deadline is known once the board is read; the core hands it to the run's other
 * capabilities as it starts (StartedRun.deadline: a usage-limit wait that would pass it ends the run).
 */
export const timeLimit: OpenCapability = (kind, options): Capability | undefined => {
  if (kind !== 'run') return undefined;
  const clock = options.seams?.clock ?? systemClock;
  const started = clock.now().getTime();
  let ms: number | null = null;
  return {
    boardRead(board) {
      try {
        ms = maxTimeMs({ ...board.settings, ...options.flags?.supervisor });
      } catch (error) {
        // A malformed max_time is the run's pre-flight check's problem, listed with the others.
        if (!(error instanceof SupervisorError)) throw error;
      }
      return Promise.resolve();
    },
    async runStarted({ stop, closed }) {
      if (ms === null) return;
      const limit = ms;
      void sleepUntil({ clock, stop: { interrupt: closed, force: closed } }, started + limit).then(() => {
        if (closed.aborted) return;
        stop(
          new TimeLimitError(
            `The run reached its time limit of ${formatDuration(limit)} (--max-time or supervisor.max_time): ` +
              `whatever was running was stopped. The board is unchanged; run again to resume at the current task.`,
          ),
        );
      });
    },
    deadline: () => (ms === null ? undefined : new Date(started + ms)),
  };
};
