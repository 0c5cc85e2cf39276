import { shorten } from '../util/clean-text.js';
import { eventTable, type CapabilityEvents } from '../events/capability-events.js';
import { foldRuns } from '../events/fold.js';
import { parseEvents, type ReadEvent } from '../events/parse.js';
import { NewestFirst, withStore } from '../events/event-files.js';

/**
 * One step as the Manager's `history` input shows it (snake_case, like the other inputs). The
 * supervisor only reports what happened; what it means is the Manager's to decide.
 */
export interface HistoryStep {
  run: string;
  step: number;
  /** When the step started. */
  time: string;
  /** The task, or kanban.yaml for a periodic role's step. */
  task: string;
  /** The role that ran the task (or the periodic role). */
  role: string;
  /** The periodic role whose step this was. */
  trigger?: string;
  /** Its valid reply's status and the start of its message, if it gave one. */
  status?: string;
  message?: string;
  /** How many times its agent ran (usage-limit and service-error re-runs included). */
  attempts: number;
  /** Why attempts were invalid output, the first few, each shortened. */
  invalid: string[];
  /** How many times it waited for a usage limit. */
  limit_waits: number;
  /** Its retries ran out and the Manager got `{"status": "error"}` for it (on_exhausted: manager). */
  exhausted?: true;
  /** What the Manager answered, when its answer was written to the board. */
  manager?: { status: unknown; next_task: unknown };
  /** A person's edit of kanban.yaml during the step was kept over the Manager's answer. */
  person_edit_kept?: true;
  /** The run stopped during this step, and why (retries_exhausted, interrupted, …). */
  stopped?: string;
}

// Bounds keep the history well under the 64 KiB of KANBAN_INPUT in the usual case:
// 50 steps of at most ~700 bytes each.
const STEPS = 50;
const TEXT_CHARS = 160;
const INVALID_KEPT = 2;
// Enough for the last ~100 steps of a typical board (a step writes 2–4 KB of events).
const TAIL_BYTES = 256 * 1024;

/**
 * The Manager's view of the fold: the board's recent steps, newest first. It holds the events
 * of the last steps — the tail of the history (earlier runs) read at the start of a run, then
 * this run's events as they are emitted — and folds them when the Manager is to be asked. Bounded.
 * `capabilityEvents`: the capabilities' event types, read and folded as each one says.
 */
export class StepHistory {
  /** The events held, oldest first, cut before a step_started: the first group may hold no step. */
  private readonly groups: ReadEvent[][] = [[]];

  constructor(private readonly capabilityEvents: readonly CapabilityEvents[]) {}

  /** Start from the steps already in the board's event log, but those of the run `except`. */
  static fromBoard(boardDir: string, except: string, capabilityEvents: readonly CapabilityEvents[]): StepHistory {
    const history = new StepHistory(capabilityEvents);
    for (const event of tailEvents(boardDir, capabilityEvents)) if (event.run !== except) history.record(event);
    return history;
  }

  /** Take an event in (an EventLog listener). */
  readonly record = (event: ReadEvent): void => {
    if (event.type === 'step_started') this.groups.push([]);
    (this.groups.at(-1) as ReadEvent[]).push(event);
    if (this.groups.length > STEPS + 1) this.groups.shift();
  };

  /** The steps, newest first: new objects each time, so the Manager's inputs never change after they are built. */
  recent(): HistoryStep[] {
    const newestFirst = this.groups.flat().reverse();
    const steps = foldRuns(newestFirst, eventTable(this.capabilityEvents).folds).flatMap((run) =>
      run.stepRecords.map((step): HistoryStep => {
        const worker = run.attempts.filter((a) => a.step === step.step && !a.manager && a.finished);
        const valid = worker.filter((a) => a.finished?.valid).at(-1)?.finished;
        const invalid = worker.flatMap((a) =>
          a.finished && !a.finished.valid && a.finished.failure !== 'usage_limit'
            ? [text(a.finished.issue ?? a.finished.end)]
            : [],
        );
        return {
          run: run.id,
          step: step.step,
          time: step.time,
          task: step.task,
          role: step.role,
          ...(step.trigger !== undefined && { trigger: step.trigger }),
          attempts: worker.length,
          invalid: invalid.slice(0, INVALID_KEPT),
          limit_waits: step.limitWaits,
          ...(valid && { status: String(valid.status), message: text(valid.message) }),
          ...(step.exhausted !== undefined && {
            exhausted: true as const,
            status: 'error',
            message: text(step.exhausted),
          }),
          ...(step.personEditKept && { person_edit_kept: true as const }),
          ...(step.board && { manager: { status: step.board.status, next_task: step.board.current } }),
          ...(step.stopped !== undefined && { stopped: step.stopped }),
        };
      }),
    );
    return steps.reverse().slice(0, STEPS);
  }
}

/**
 * The events in the last `bytes` of a board's history, oldest first: read from its end, never
 * whole. A line cut by the start of that window or torn by a crash is skipped; a history that
 * cannot be read is none (the Manager's history is a help, not a condition of the run).
 */
export function tailEvents(
  boardDir: string,
  capabilityEvents: readonly CapabilityEvents[],
  bytes = TAIL_BYTES,
): ReadEvent[] {
  const { checks } = eventTable(capabilityEvents);
  try {
    return (
      withStore(boardDir, (files) =>
        [...parseEvents(new NewestFirst(files, { limitBytes: bytes }), checks)].reverse(),
      ) ?? []
    );
  } catch {
    return [];
  }
}

function text(value: unknown): string {
  return shorten(String(value ?? ''), TEXT_CHARS);
}
