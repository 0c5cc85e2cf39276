import type { RunAttempt } from '../agent/attempt.js';
import type { StopSignals } from '../agent/interrupt.js';
import type { EventLog } from '../events/log.js';
import type { StepCommits } from '../git/step-commits.js';
import type { StepHistory } from '../events/step-history.js';
import type { OutputStore } from '../log/output-store.js';
import type { SchemaCompiler } from '../schemas.js';
import type { SettingsFlags } from '../board/settings.js';
import type { Spend } from '../spend.js';

// agent/ defines what it needs of a run; the run's other users import it from here.
export type { StopSignals };

/** The clock, passed in so waits can be tested without real time. */
export interface Clock {
  now(): Date;
  /** Resolves after `ms`, or early (without throwing) when `signal` aborts. */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
}

/**
 * Everything one run shares, built once by `run/harness.ts`: the board, the side effects
 * (attempt runner, event log, output files, clock) and how the run is told to stop. Tests
 * build their own with a fake `runAttempt` to check the loop, retries and guards fast.
 */
export interface RunContext {
  /** kanban.yaml: its real, absolute path. */
  file: string;
  /** The board folder. */
  dir: string;
  runId: string;
  flags: SettingsFlags & { once?: boolean; watch?: boolean };
  /** The environment agents inherit. */
  env: NodeJS.ProcessEnv;
  runAttempt: RunAttempt;
  events: EventLog;
  output: OutputStore;
  schemas: SchemaCompiler;
  stop: StopSignals;
  clock: Clock;
  /** Called with the running agent's latest non-blank output line (the live status line shows it). */
  onLine?: (line: string) => void;
  /** What the run's attempts spent so far, against its budget. */
  spend: Spend;
  /** How long this run waited for usage limits so far, and how many waits had no reset time. */
  limits: { waitedMs: number; fallbacks: number };
  /** When the run must have ended (--max-time): a usage limit resetting later ends it at once (exit 69). */
  deadline?: Date;
  /** The board's recent steps, given to the Manager as `history` (none when absent). */
  history?: StepHistory;
  /** One commit per applied step (supervisor.git_commit), when the board is in a git repository. */
  git?: StepCommits;
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
