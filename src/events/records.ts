import type { EventUsage } from '../event-types.js';
import type { ReadEvent, ReadOf } from './parse.js';

/** An attempt's events: its start and its end. */
export type AttemptEvent = ReadOf<'attempt_started' | 'attempt_finished'>;

/** The events that end a run. */
export type RunEndEvent = ReadOf<RunEnd['type']>;

/** One attempt of an agent, put together from its attempt_started and attempt_finished events. */
export interface AttemptRecord {
  run: string;
  step: number;
  /** The step's task (for the Manager too, whose events name the board). */
  task: string;
  role: string;
  /** Whether this is the Manager's turn of the step, after the worker. */
  manager: boolean;
  /** The periodic role whose step this is (supervisor.periodic), if it is one. */
  trigger?: string;
  attempt: number;
  /** How often this attempt was run again after a usage limit or a service error (its files say `.rerunN`). */
  rerun?: number;
  of: number;
  start: string;
  /** The known agent CLI that ran it (attempt_started's `cli`); absent for any other command, and in older logs. */
  cli?: string;
  /** The fallback role file that ran the role's attempt (attempt_started's `agent`); absent for the role's own. */
  agent?: string;
  /** Absent while running, or when the supervisor died mid-attempt. */
  finished?: AttemptEnd;
}

/** How an attempt ended, from its attempt_finished event. */
export interface AttemptEnd {
  durationMs: number;
  end: string;
  valid: boolean;
  status?: string;
  /** The start of the reply's message. */
  message?: string;
  issue?: string;
  /** invalid, usage_limit, transient or login, for an attempt that gave no valid reply. */
  failure?: string;
  /** What the attempt reported spending. */
  usage?: EventUsage;
  /** How its process ended, when it exited (`end: exited`). */
  exitCode?: number;
  signal?: string;
  stdoutFile?: string;
  stderrFile?: string;
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

/** The event types that end a run. */
export const RUN_END_TYPES: ReadonlySet<string> = new Set<RunEnd['type']>(['done', 'halted', 'interrupted']);

/** Whether an event ends a run. */
export function isRunEnd(event: ReadEvent): event is RunEndEvent {
  return RUN_END_TYPES.has(event.type);
}

/** An attempt as its attempt_started event tells it (pure); `task` is its step's task. */
export function attemptFrom(started: ReadOf<'attempt_started'>, task: string): AttemptRecord {
  return {
    run: started.run,
    step: started.step,
    task,
    role: started.role,
    manager: isManagerTurn(started) || started.task !== task,
    ...(started.trigger !== undefined && { trigger: started.trigger }),
    attempt: started.attempt,
    ...(started.rerun !== undefined && started.rerun > 0 && { rerun: started.rerun }),
    of: started.of,
    start: started.time,
    ...(started.cli !== undefined && { cli: started.cli }),
    ...(started.agent !== undefined && { agent: started.agent }),
  };
}

/** Who ran an attempt (pure): its role, and the fallback role whose agent took the role's step, if one did. */
export function ranBy(attempt: Pick<AttemptRecord, 'role' | 'agent'>): string {
  return attempt.agent ? `${attempt.role} (fallback ${attempt.agent})` : attempt.role;
}

/** An attempt's end as its attempt_finished event tells it (pure). */
export function attemptEnd(event: ReadOf<'attempt_finished'>): AttemptEnd {
  return {
    durationMs: event.durationMs,
    end: event.end,
    valid: event.valid,
    ...(event.status !== undefined && { status: event.status }),
    ...(event.message !== undefined && { message: event.message }),
    ...(event.issue !== undefined && { issue: event.issue }),
    ...(event.failure !== undefined && { failure: event.failure }),
    ...(event.usage !== undefined && { usage: event.usage }),
    // null when it did not exit, or exited without a signal; absent in some older lines.
    ...(event.exitCode !== undefined && event.exitCode !== null && { exitCode: event.exitCode }),
    ...(event.signal !== undefined && event.signal !== null && { signal: event.signal }),
    ...(event.stdoutFile !== undefined && { stdoutFile: event.stdoutFile }),
    ...(event.stderrFile !== undefined && { stderrFile: event.stderrFile }),
  };
}

/** A run's end as a done / halted / interrupted event tells it (pure). */
export function runEnd(event: RunEndEvent): RunEnd {
  const { time, type } = event;
  if (event.type === 'done') return { time, type, exitCode: 0 };
  const halted = event.type === 'halted' ? event : undefined;
  const why = event.message ?? halted?.issue;
  return {
    time,
    type,
    exitCode: event.exitCode,
    ...(event.reason !== undefined && { reason: event.reason }),
    ...(why !== undefined && { why }),
    ...(halted?.role !== undefined && { role: halted.role }),
    ...(halted?.task !== undefined && { task: halted.task }),
  };
}

/** Whether an event is the Manager's turn of a step (its attempt events name the board and the task it hears about). */
export function isManagerTurn(event: ReadEvent): boolean {
  return 'done_task' in event && event.done_task !== undefined;
}

/**
 * The key that pairs an attempt's started and finished events
 * (a re-run after a usage limit repeats its attempt number).
 */
export function attemptKey(event: AttemptEvent): string {
  return `${event.run}\0${event.step}\0${event.role}\0${event.task}\0${event.attempt}\0${event.rerun ?? 0}`;
}

/** Whether an attempt ended by a timeout (wall or idle). */
export function timedOut(attempt: AttemptRecord): boolean {
  return attempt.finished?.end === 'timeout' || attempt.finished?.end === 'idle-timeout';
}
