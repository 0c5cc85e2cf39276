import type { EventUsage, SupervisorEvent } from './event-types.js';

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
export function isRunEnd(event: SupervisorEvent): event is SupervisorEvent & { type: RunEnd['type'] } {
  return RUN_END_TYPES.has(event.type);
}

/** An attempt as its attempt_started event tells it (pure); `task` is its step's task. */
export function attemptFrom(started: SupervisorEvent, task: string): AttemptRecord {
  const trigger = typeof started.trigger === 'string' ? { trigger: started.trigger } : {};
  const cli = typeof started.cli === 'string' ? { cli: started.cli } : {};
  return {
    run: started.run,
    step: Number(started.step),
    task,
    role: String(started.role),
    manager: isManagerTurn(started) || started.task !== task,
    ...trigger,
    attempt: Number(started.attempt),
    ...(Number(started.rerun) > 0 && { rerun: Number(started.rerun) }),
    of: Number(started.of),
    start: started.time,
    ...cli,
    ...(typeof started.agent === 'string' && { agent: started.agent }),
  };
}

/** Who ran an attempt (pure): its role, and the fallback role whose agent took the role's step, if one did. */
export function ranBy(attempt: Pick<AttemptRecord, 'role' | 'agent'>): string {
  return attempt.agent ? `${attempt.role} (fallback ${attempt.agent})` : attempt.role;
}

/** An attempt's end as its attempt_finished event tells it (pure). */
export function attemptEnd(event: SupervisorEvent): AttemptEnd {
  return {
    durationMs: Number(event.durationMs),
    end: String(event.end),
    valid: event.valid === true,
    ...(typeof event.status === 'string' && { status: event.status }),
    ...(typeof event.message === 'string' && { message: event.message }),
    ...(typeof event.issue === 'string' && { issue: event.issue }),
    ...(typeof event.failure === 'string' && { failure: event.failure }),
    ...(event.usage !== null && typeof event.usage === 'object' && { usage: event.usage as EventUsage }),
    ...(typeof event.exitCode === 'number' && { exitCode: event.exitCode }),
    ...(typeof event.signal === 'string' && { signal: event.signal }),
    ...(typeof event.stdoutFile === 'string' && { stdoutFile: event.stdoutFile }),
    ...(typeof event.stderrFile === 'string' && { stderrFile: event.stderrFile }),
  };
}

/** A run's end as a done / halted / interrupted event tells it (pure). */
export function runEnd(event: SupervisorEvent & { type: RunEnd['type'] }): RunEnd {
  return {
    time: event.time,
    type: event.type,
    exitCode: event.type === 'done' ? 0 : Number(event.exitCode),
    ...(typeof event.reason === 'string' && { reason: event.reason }),
    ...(typeof (event.message ?? event.issue) === 'string' && { why: String(event.message ?? event.issue) }),
    ...(typeof event.role === 'string' && { role: event.role }),
    ...(typeof event.task === 'string' && { task: event.task }),
  };
}

/** Whether an attempt event is the Manager's turn of a step (it names the board and the task it hears about). */
export function isManagerTurn(event: SupervisorEvent): boolean {
  return event.done_task !== undefined;
}

/**
 * The key that pairs an attempt's started and finished events
 * (a re-run after a usage limit repeats its attempt number).
 */
export function attemptKey(event: SupervisorEvent): string {
  return (
    `${event.run}\0${String(event.step)}\0${String(event.role)}\0${String(event.task)}\0${String(event.attempt)}\0` +
    `${String(event.rerun ?? 0)}`
  );
}

/** Whether an attempt ended by a timeout (wall or idle). */
export function timedOut(attempt: AttemptRecord): boolean {
  return attempt.finished?.end === 'timeout' || attempt.finished?.end === 'idle-timeout';
}
