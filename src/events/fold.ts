import {
  attemptEnd,
  attemptFrom,
  attemptKey,
  isManagerTurn,
  isRunEnd,
  runEnd,
  type AttemptEnd,
  type AttemptRecord,
  type AttemptEvent,
  type RunEnd,
} from './records.js';
import type { EventType } from '../event-types.js';
import type { EventChecks, ReadEvent, ReadOf } from './parse.js';

/** One step of a run: who ran what, and what happened around its attempts. */
export interface StepRecord {
  step: number;
  /** When it started. */
  time: string;
  /** The task, or kanban.yaml for a periodic role's step. */
  task: string;
  role: string;
  /** The periodic role whose step this is (supervisor.periodic), if it is one. */
  trigger?: string;
  /** How many times it waited for a usage limit. */
  limitWaits: number;
  /** How long those waits were to last, in all (limit_wait's `waitMs`). */
  limitWaitMs: number;
  /** Its retries ran out and the Manager got `{"status": "error"}` with this message (on_exhausted: manager). */
  exhausted?: string;
  /** What the Manager answered, when its answer was written to the board. */
  board?: { status: unknown; current: unknown };
  /** A person's edit of kanban.yaml during the step was kept over the Manager's answer. */
  personEditKept?: true;
  /** The run stopped during this step, and why (retries_exhausted, interrupted, …). */
  stopped?: string;
}

/** One run of the supervisor on the board: its steps and its attempts, oldest first. */
export interface RunRecord {
  id: string;
  /** Its first event's time (its oldest one read). */
  start: string;
  /** The last event's time: the end of the run, or where it was when it died. */
  last: string;
  /** The highest step number started. */
  steps: number;
  attempts: AttemptRecord[];
  /** The steps whose step_started was read. */
  stepRecords: StepRecord[];
  end?: RunEnd;
  /** How long its usage-limit waits were to last, in all (limit_wait's `waitMs`); absent in views made without it. */
  limitWaitMs?: number;
}

/** What a step's events tell of it besides its start. */
export type StepFacts = Omit<StepRecord, 'step' | 'time' | 'task' | 'role' | 'trigger'>;

/**
 * Where a capability's event is folded in (fed newest first, like `add`): the run's record (a
 * capability adds its own fields to RunRecord by declaration merging) and the facts of a step.
 */
export interface FoldInto {
  run: RunRecord;
  /** The facts of step `n`, gathered until its step_started is read; those of no step belong to none. */
  step: (n: number | undefined) => StepFacts;
}

/** How an event of type T is folded in, by a capability that adds the type (its events.ts). */
export type EventFold<T extends EventType & keyof EventChecks> = (event: ReadOf<T>, into: FoldInto) => void;

/** The capabilities' folds, by event type (events/capability-events.ts gathers them). */
export type MoreFolds = ReadonlyMap<string, (event: ReadEvent, into: FoldInto) => void>;

// A run while it is folded: lists newest first, and what belongs to steps not started yet.
interface Folding {
  record: RunRecord;
  pending: Map<number, { attempts: AttemptRecord[]; facts: StepFacts }>;
}

/**
 * The one fold of the event log into runs → steps → attempts, fed events newest first (as the log
 * is read from its end): an attempt's end comes before its start, a step's attempts before
 * the step. It may be fed only some events (a view that skips lines it does not need) and
 * stopped at any point; `add` says which attempt an attempt_started completed, so a view can
 * stop once it has what it shows. A capability's event types are folded by the capability
 * (`folds`, from its events.ts); types no one folds are skipped. No I/O: the readers (latest.ts,
 * recent-runs.ts) read, views fold.
 */
export class RunFold {
  /** The runs seen, newest first (runs never interleave: one supervisor per board). */
  private readonly folding = new Map<string, Folding>();
  private readonly ends = new Map<string, AttemptEnd>();

  /**
   * What the runs keep (both by default): a view that adds attempts up as `add` hands them back
   * keeps none, one that shows no steps keeps no steps; memory then holds what the view shows.
   */
  constructor(
    private readonly folds: MoreFolds,
    private readonly keep: { attempts?: boolean; steps?: boolean } = {},
  ) {}

  /** Fold in the next older event; returns the attempt record an attempt_started makes. */
  add(event: ReadEvent): AttemptRecord | undefined {
    const run = this.runOf(event);
    run.record.start = event.time;
    switch (event.type) {
      case 'step_started':
        this.started(run, event);
        return undefined;
      case 'attempt_finished':
        // Newest first: the oldest end of a key is the one right after its start.
        this.ends.set(attemptKey(event), attemptEnd(event));
        return undefined;
      case 'attempt_started':
        return this.attempt(run, event);
      case 'handed_to_manager':
        facts(run, event.step).exhausted ??= event.message;
        return undefined;
      case 'board_written':
        facts(run, event.step).board ??= { status: event.status, current: event.current ?? null };
        return undefined;
      case 'human_edit_kept':
        facts(run, event.step).personEditKept = true;
        return undefined;
      default: {
        if (!isRunEnd(event)) {
          this.folds.get(event.type)?.(event, { run: run.record, step: (n) => facts(run, n) });
          return undefined;
        }
        const end = runEnd(event);
        run.record.end ??= end;
        // A halt of retries names its step; the end of a run names none.
        facts(run, event.type === 'halted' ? event.step : undefined).stopped ??= end.reason ?? event.type;
        return undefined;
      }
    }
  }

  /** A run folded so far (its lists still newest first), if any of its events was seen. */
  peek(id: string): RunRecord | undefined {
    return this.folding.get(id)?.record;
  }

  /** How many runs were seen. */
  get size(): number {
    return this.folding.size;
  }

  /** The runs, oldest first, each with its attempts and steps oldest first. */
  runs(): RunRecord[] {
    return [...this.folding.values()].reverse().map(({ record }) => ({
      ...record,
      attempts: [...record.attempts].reverse(),
      stepRecords: [...record.stepRecords].reverse(),
    }));
  }

  private runOf(event: ReadEvent): Folding {
    let run = this.folding.get(event.run);
    if (!run) {
      run = {
        record: {
          id: event.run,
          start: event.time,
          last: event.time,
          steps: 0,
          attempts: [],
          stepRecords: [],
        },
        pending: new Map(),
      };
      this.folding.set(event.run, run);
    }
    return run;
  }

  private attempt(run: Folding, event: ReadOf<'attempt_started'>): AttemptRecord {
    const record = attemptFrom(event, event.task);
    const key = attemptKey(event);
    const end = this.ends.get(key);
    if (end) record.finished = end;
    this.ends.delete(key);
    if (this.keep.attempts !== false) run.record.attempts.push(record);
    pendingOf(run, event.step).attempts.push(record);
    return record;
  }

  // A step's attempts name the step's task only once its step_started is read (the Manager's
  // name the board): they take it then, as do the facts gathered for it.
  private started(run: Folding, event: ReadOf<'step_started'>): void {
    const { step: n, task } = event;
    const pending = run.pending.get(n);
    run.pending.delete(n);
    for (const attempt of pending?.attempts ?? []) {
      attempt.manager ||= attempt.task !== task;
      attempt.task = task;
    }
    run.record.steps = Math.max(run.record.steps, n);
    const trigger = event.trigger !== undefined ? { trigger: event.trigger } : {};
    if (this.keep.steps === false) return;
    run.record.stepRecords.push({
      step: n,
      time: event.time,
      task,
      role: event.role,
      ...trigger,
      ...(pending?.facts ?? newFacts()),
    });
  }
}

function pendingOf(run: Folding, n: number): { attempts: AttemptRecord[]; facts: StepFacts } {
  let pending = run.pending.get(n);
  if (!pending) {
    pending = { attempts: [], facts: newFacts() };
    run.pending.set(n, pending);
  }
  return pending;
}

// Facts of an event that names no step belong to none.
function facts(run: Folding, n: number | undefined): StepFacts {
  return n === undefined ? newFacts() : pendingOf(run, n).facts;
}

function newFacts(): StepFacts {
  return { limitWaits: 0, limitWaitMs: 0 };
}

/** Fold events given newest first into runs, oldest first (pure). */
export function foldRuns(newestFirst: Iterable<ReadEvent>, folds: MoreFolds): RunRecord[] {
  const fold = new RunFold(folds);
  for (const event of newestFirst) fold.add(event);
  return fold.runs();
}

/** Whether an attempt record is the one an event is about (the same run, step, role, turn and attempt). */
export function isAttemptOf(attempt: AttemptRecord, event: AttemptEvent): boolean {
  return (
    event.run === attempt.run &&
    event.step === attempt.step &&
    event.role === attempt.role &&
    event.attempt === attempt.attempt &&
    isManagerTurn(event) === attempt.manager
  );
}
