import { attemptEnd, attemptFrom, attemptKey, isRunEnd, runEnd, type AttemptRecord } from '../src/events/records.js';
import type { RunRecord } from '../src/events/fold.js';
import type { ReadEvent } from '../src/events/parse.js';

/** A run without its steps: what the plain forward fold below builds. */
export type PlainRun = Omit<RunRecord, 'stepRecords'>;

/**
 * The plain way to group events into runs and attempts, oldest first and in one forward pass:
 * the reference the store's backward fold (src/events/fold.ts) is checked against.
 */
export function buildHistory(events: Iterable<ReadEvent>): PlainRun[] {
  const runs = new Map<string, PlainRun>();
  const steps = new Map<string, { step: number; task: string }>();
  const open = new Map<string, AttemptRecord>();
  for (const event of events) {
    let run = runs.get(event.run);
    if (!run) {
      run = { id: event.run, start: event.time, last: event.time, steps: 0, attempts: [] };
      runs.set(event.run, run);
    }
    run.last = event.time;
    if (event.type === 'step_started') {
      steps.set(run.id, { step: event.step, task: event.task });
      run.steps = Math.max(run.steps, event.step);
    } else if (event.type === 'attempt_started') {
      const step = steps.get(run.id);
      const record = attemptFrom(event, step?.step === event.step ? step.task : event.task);
      run.attempts.push(record);
      open.set(attemptKey(event), record);
    } else if (event.type === 'attempt_finished') {
      const record = open.get(attemptKey(event));
      if (record) record.finished = attemptEnd(event);
      open.delete(attemptKey(event));
    } else if (event.type === 'limit_wait') {
      const waitMs = event.waitMs ?? 0;
      if (waitMs > 0) run.limitWaitMs = (run.limitWaitMs ?? 0) + waitMs;
    } else if (isRunEnd(event)) {
      run.end = runEnd(event);
    }
  }
  return [...runs.values()];
}

/** Runs as the fold gives them, without their steps, to compare with buildHistory. */
export function plain(runs: RunRecord[]): PlainRun[] {
  return runs.map(({ stepRecords: _steps, ...run }) => run);
}
