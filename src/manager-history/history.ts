import type { SupervisorEvent } from '../log/events.js';
import { isManagerTurn } from '../history/records.js';
import { shorten } from '../util/text.js';
import { tailEvents } from './tail.js';

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

/**
 * The board's recent steps for the Manager, newest first: the tail of events.jsonl (earlier
 * runs) folded at the start of a run, then this run's events as they are emitted. Bounded.
 */
export class StepHistory {
  private readonly steps = new Map<string, HistoryStep>();

  /** Start from the steps already in the board's event log. */
  static fromBoard(boardDir: string): StepHistory {
    const history = new StepHistory();
    for (const event of tailEvents(boardDir)) history.record(event);
    return history;
  }

  /** Fold an event in (an EventLog listener). */
  readonly record = (event: SupervisorEvent): void => {
    const key = `${event.run}#${String(event.step)}`;
    if (event.type === 'step_started') return this.started(key, event);
    const step = this.steps.get(key);
    if (step) foldInto(step, event);
  };

  /** The steps, newest first: a copy, so the Manager's inputs never change after they are built. */
  recent(): HistoryStep[] {
    return [...this.steps.values()].reverse().map((step) => structuredClone(step));
  }

  private started(key: string, event: SupervisorEvent): void {
    this.steps.delete(key);
    this.steps.set(key, {
      run: event.run,
      step: Number(event.step),
      time: event.time,
      task: String(event.task),
      role: String(event.role),
      ...(typeof event.trigger === 'string' && { trigger: event.trigger }),
      attempts: 0,
      invalid: [],
      limit_waits: 0,
    });
    // A Map keeps insertion order: the first key is the oldest step.
    while (this.steps.size > STEPS) this.steps.delete(this.steps.keys().next().value as string);
  }
}

// The Manager's own events carry done_task; the step's worker (or periodic role) is the rest.
function foldInto(step: HistoryStep, event: SupervisorEvent): void {
  const manager = isManagerTurn(event);
  switch (event.type) {
    case 'attempt_finished':
      if (manager) return;
      step.attempts++;
      if (event.valid === true) Object.assign(step, { status: String(event.status), message: text(event.message) });
      // A usage limit is not invalid output: it is counted in limit_waits.
      else if (event.failure !== 'usage_limit' && step.invalid.length < INVALID_KEPT) step.invalid.push(text(event.issue ?? event.end));
      return;
    case 'limit_wait':
      step.limit_waits++;
      return;
    case 'handed_to_manager':
      Object.assign(step, { exhausted: true, status: 'error', message: text(event.message) });
      return;
    case 'board_written':
      step.manager = { status: event.status, next_task: event.current ?? null };
      return;
    case 'human_edit_kept':
      step.person_edit_kept = true;
      return;
    case 'halted':
    case 'interrupted':
      step.stopped = String(event.reason ?? event.type);
      return;
    default:
  }
}

function text(value: unknown): string {
  return shorten(String(value ?? ''), TEXT_CHARS);
}
