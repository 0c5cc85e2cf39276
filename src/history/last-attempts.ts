import type { SupervisorEvent } from '../log/events.js';
import type { Finder } from './finder.js';
import { fieldPeeker } from './parse-event.js';
import { attemptEnd, attemptFrom, attemptKey, isManagerTurn, type AttemptEnd, type AttemptRecord } from './records.js';

/**
 * Finds each given task's last worker attempt from events fed newest first: its
 * attempt_finished comes before its attempt_started, so ends are held (for the tasks still
 * looked for only) until their start shows up. The Manager's attempts (which name the task
 * they hear about, and the board) are not a task's.
 */
export class LastAttemptFinder implements Finder {
  readonly attempts = new Map<string, AttemptRecord>();
  private readonly wanted: Set<string>;
  private readonly ends = new Map<string, AttemptEnd>();
  private readonly peekTask = fieldPeeker('task');
  private readonly peekType = fieldPeeker('type');

  constructor(tasks: Iterable<string>) {
    this.wanted = new Set(tasks);
  }

  get found(): boolean {
    return this.wanted.size === 0;
  }

  wants(line: string): boolean {
    // Most lines name a task, most often one found already (or the board, for the Manager).
    const task = this.peekTask(line);
    if (task !== undefined) return this.wanted.has(task);
    const type = this.peekType(line);
    return type === undefined || type === 'attempt_started' || type === 'attempt_finished';
  }

  see(event: SupervisorEvent): void {
    if (event.type !== 'attempt_started' && event.type !== 'attempt_finished') return;
    const task = event.task;
    if (typeof task !== 'string' || !this.wanted.has(task) || isManagerTurn(event)) return;
    const key = attemptKey(event);
    if (event.type === 'attempt_finished') {
      if (!this.ends.has(key)) this.ends.set(key, attemptEnd(event));
      return;
    }
    const record = attemptFrom(event, task);
    const end = this.ends.get(key);
    if (end) record.finished = end;
    this.ends.delete(key);
    this.attempts.set(task, record);
    this.wanted.delete(task);
  }
}
