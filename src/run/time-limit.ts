import type { Clock } from '../loop/context.js';
import { TimeLimitError } from '../errors.js';
import { formatDuration } from '../util/duration.js';
import type { Stopper } from './stop.js';

/**
 * A batch job's time budget of `ms` (--max-time, supervisor.max_time; SPEC §5c): once `clock`
 * reaches `until`, the run is asked to stop like an interrupt — the running agent's group stopped,
 * the board unchanged, the lock released — and ends with exit 124. Returns how to cancel it.
 */
export function startTimeLimit(until: Date, ms: number, clock: Clock, stopper: Stopper): () => void {
  const cancel = new AbortController();
  const deadline = until.getTime();
  void (async () => {
    // The clock's sleeps are cut at about 24 days (Node's longest timer): sleep again until the deadline.
    while (!cancel.signal.aborted && clock.now().getTime() < deadline)
      await clock.sleep(deadline - clock.now().getTime(), cancel.signal);
    if (cancel.signal.aborted) return;
    stopper.request(
      new TimeLimitError(
        `The run reached its time limit of ${formatDuration(ms)} (--max-time or supervisor.max_time): whatever was running was stopped. The board is unchanged; run again to resume at the current task.`,
      ),
    );
  })();
  return () => cancel.abort();
}
