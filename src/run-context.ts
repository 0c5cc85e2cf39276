import { runAttempt as realRunAttempt, type RunAttempt } from './agent/attempt.js';
import { systemClock, type Clock, type RunContext, type StopSignals } from './context.js';
import type { EventLog } from './events/log.js';
import type { OutputStore } from './log/output-store.js';
import { createSchemaCompiler } from './schemas.js';
import { Spend } from './spend.js';

/** What a caller must give to make a RunContext; the rest has defaults. */
export interface RunParts {
  file: string;
  dir: string;
  runId: string;
  flags: RunContext['flags'];
  env: NodeJS.ProcessEnv;
  events: EventLog;
  output: OutputStore;
  stop: StopSignals;
  runAttempt?: RunAttempt;
  clock?: Clock;
  onLine?: (line: string) => void;
  /** What the run's attempts spend, when the caller shows it too. */
  spend?: Spend;
}

/**
 * The RunContext of a run or a `try`, built in one place: the real attempt runner, the system
 * clock and a fresh schema compiler unless given, so both run an agent the very same way.
 */
export function buildRunContext(parts: RunParts): RunContext {
  const { onLine, runAttempt, clock, spend, ...rest } = parts;
  return {
    ...rest,
    runAttempt: runAttempt ?? realRunAttempt,
    schemas: createSchemaCompiler(),
    clock: clock ?? systemClock,
    spend: spend ?? new Spend(),
    limits: { waitedMs: 0, fallbacks: 0 },
    ...(onLine && { onLine }),
  };
}
