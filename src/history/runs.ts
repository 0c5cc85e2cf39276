import type { SupervisorEvent } from '../log/events.js';
import { attemptEnd, attemptFrom, attemptKey, isRunEnd, runEnd, type AttemptRecord, type RunEnd } from './records.js';

/** One run of the supervisor on the board. */
export interface RunRecord {
  id: string;
  start: string;
  /** The last event's time: the end of the run, or where it was when it died. */
  last: string;
  steps: number;
  attempts: AttemptRecord[];
  end?: RunEnd;
}

/**
 * Group events, oldest first, into runs, steps and attempts, in one pass (pure). Holds only
 * what it returns plus the attempts still open: events can be streamed in from any size of
 * log. Event types it does not know are skipped.
 */
export function buildHistory(events: Iterable<SupervisorEvent>): RunRecord[] {
  const runs = new Map<string, RunRecord>();
  // Each run's current step and its task: attempts belong to the step started last.
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
      steps.set(run.id, { step: Number(event.step), task: String(event.task) });
      run.steps = Math.max(run.steps, Number(event.step));
    } else if (event.type === 'attempt_started') {
      const step = steps.get(run.id);
      const record = attemptFrom(event, step?.step === Number(event.step) ? step.task : String(event.task));
      run.attempts.push(record);
      open.set(attemptKey(event), record);
    } else if (event.type === 'attempt_finished') {
      const key = attemptKey(event);
      const record = open.get(key);
      if (record) record.finished = attemptEnd(event);
      open.delete(key);
    } else if (isRunEnd(event)) {
      run.end = runEnd(event);
    }
  }
  return [...runs.values()];
}
