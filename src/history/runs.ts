import { readFileSync } from 'node:fs';
import path from 'node:path';
import { eventsFile, type SupervisorEvent } from '../log/events.js';

/** One attempt of an agent, put together from its attempt_started and attempt_finished events. */
export interface AttemptRecord {
  run: string;
  step: number;
  /** The step's task (for the Manager too, whose events name the board). */
  task: string;
  role: string;
  /** Whether this is the Manager's turn of the step, after the worker. */
  manager: boolean;
  attempt: number;
  of: number;
  start: string;
  /** Absent while running, or when the supervisor died mid-attempt. */
  finished?: {
    durationMs: number;
    end: string;
    valid: boolean;
    status?: string;
    issue?: string;
    stdoutFile?: string;
    stderrFile?: string;
  };
}

/** How a run ended, from its last done / halted / interrupted event. */
export interface RunEnd {
  time: string;
  type: 'done' | 'halted' | 'interrupted';
  exitCode: number;
  reason?: string;
  /** Why it stopped, as the supervisor worded it. */
  why?: string;
  role?: string;
  task?: string;
}

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

/** Every readable event of a board, oldest first; a torn last line (a crash mid-write) is skipped. */
export function readEvents(boardDir: string): SupervisorEvent[] {
  let text: string;
  try {
    text = readFileSync(eventsFile(path.join(boardDir, '.kanban-supervisor')), 'utf8');
  } catch {
    return [];
  }
  const events: SupervisorEvent[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      const event = JSON.parse(line) as SupervisorEvent;
      if (event && typeof event === 'object' && typeof event.type === 'string' && typeof event.run === 'string') events.push(event);
    } catch {
      // a line cut short by a crash: the rest of the history is still worth showing
    }
  }
  return events;
}

/** Group events into runs, steps and attempts (pure). */
export function buildHistory(events: SupervisorEvent[]): RunRecord[] {
  const runs = new Map<string, RunRecord>();
  const stepTask = new Map<string, string>();
  const open = new Map<string, AttemptRecord>();
  for (const event of events) {
    let run = runs.get(event.run);
    if (!run) {
      run = { id: event.run, start: event.time, last: event.time, steps: 0, attempts: [] };
      runs.set(event.run, run);
    }
    run.last = event.time;
    const stepKey = `${event.run}\0${String(event.step)}`;
    switch (event.type) {
      case 'step_started':
        stepTask.set(stepKey, String(event.task));
        run.steps = Math.max(run.steps, Number(event.step));
        break;
      case 'attempt_started': {
        const task = stepTask.get(stepKey) ?? String(event.task);
        const record: AttemptRecord = { run: event.run, step: Number(event.step), task, role: String(event.role), manager: event.done_task !== undefined || event.task !== task, attempt: Number(event.attempt), of: Number(event.of), start: event.time };
        run.attempts.push(record);
        open.set(`${stepKey}\0${String(event.task)}\0${String(event.attempt)}`, record);
        break;
      }
      case 'attempt_finished': {
        const record = open.get(`${stepKey}\0${String(event.task)}\0${String(event.attempt)}`);
        if (!record) break;
        record.finished = {
          durationMs: Number(event.durationMs),
          end: String(event.end),
          valid: event.valid === true,
          ...(typeof event.status === 'string' && { status: event.status }),
          ...(typeof event.issue === 'string' && { issue: event.issue }),
          ...(typeof event.stdoutFile === 'string' && { stdoutFile: event.stdoutFile }),
          ...(typeof event.stderrFile === 'string' && { stderrFile: event.stderrFile }),
        };
        break;
      }
      case 'done':
      case 'halted':
      case 'interrupted':
        run.end = {
          time: event.time,
          type: event.type,
          exitCode: event.type === 'done' ? 0 : Number(event.exitCode),
          ...(typeof event.reason === 'string' && { reason: event.reason }),
          ...(typeof (event.message ?? event.issue) === 'string' && { why: String(event.message ?? event.issue) }),
          ...(typeof event.role === 'string' && { role: event.role }),
          ...(typeof event.task === 'string' && { task: event.task }),
        };
        break;
      default:
        break;
    }
  }
  return [...runs.values()];
}

/** Whether an attempt ended by a timeout (wall or idle). */
export function timedOut(attempt: AttemptRecord): boolean {
  return attempt.finished?.end === 'timeout' || attempt.finished?.end === 'idle-timeout';
}
