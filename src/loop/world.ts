import type { RunAttempt } from '../agent/attempt.js';
import type { StopSignals } from '../agent/interrupt.js';
import type { LogEntry } from '../log/supervisor-log.js';

// agent/ defines what it needs of a run; the run's other users import it from here.
export type { StopSignals };

/** The clock, passed in so waits can be tested without real time. */
export interface Clock {
  now(): Date;
  /** Resolves after `ms`, or early (without throwing) when `signal` aborts. */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
}

/** The side effects of a run, passed in so that tests of the loop need no real agents or time. */
export interface World {
  /** Runs one attempt of an agent: a real process, or a test's stand-in. */
  runAttempt: RunAttempt;
  /** The environment agents inherit. */
  env: NodeJS.ProcessEnv;
  clock: Clock;
  /** How the run is told to stop: a signal, a lost lock, closed output, its time limit. */
  stop: StopSignals;
  /** Called with the running agent's latest non-blank output line (the live status line shows it). */
  onLine?: (line: string) => void;
  /** Appends an entry to supervisor.log.md (SPEC §4), stamped by the clock. */
  log(entry: Omit<LogEntry, 'time'>): void;
}

/** The real clock. */
export const systemClock: Clock = {
  now: () => new Date(),
  sleep: (ms, signal) =>
    new Promise((resolve) => {
      if (signal.aborted) return resolve();
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve();
      };
      // Node fires a timer longer than 2^31-1 ms at once; a longer sleep is cut, callers loop.
      const timer = setTimeout(done, Math.min(ms, 2 ** 31 - 1));
      signal.addEventListener('abort', done, { once: true });
    }),
};

/** Throw the reason the run was told to stop, if it was. */
export function throwIfStopped(stop: StopSignals): void {
  if (stop.interrupt.aborted) throw stop.interrupt.reason as Error;
}

/** Sleep until `until` (ms since the epoch) or a stop, in parts: Node's timers hold at most 24.8 days. */
export async function sleepUntil(world: Pick<World, 'clock' | 'stop'>, until: number): Promise<void> {
  for (let left = until - world.clock.now().getTime(); left > 0 && !world.stop.interrupt.aborted;) {
    await world.clock.sleep(left, world.stop.interrupt);
    left = until - world.clock.now().getTime();
  }
}
