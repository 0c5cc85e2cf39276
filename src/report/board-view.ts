import type { RunRecord } from '../events/fold.js';
import type { AttemptRecord } from '../events/records.js';
import { addUsage, emptySpend, type SpendTotal } from '../spend.js';
import type { ParkedTask } from '../board/parked.js';
import type { Figures } from './figures.js';

/** The columns of the board, left to right. */
export const COLUMNS = ['todo', 'current', 'blocked', 'done'] as const;
export type Column = (typeof COLUMNS)[number];

/** What the board and a task's file say of it (the file's front-matter, or why it cannot be read). */
export interface TaskFacts {
  task: string;
  title?: string;
  /** The role that runs it now (determine_role), or null if its file cannot be read. */
  role: string | null;
  /** Its front-matter `status:`, as a Manager (the sequential one: `done`) or a person wrote it. */
  status?: string;
  problem?: string;
}

/** One card of the board: a task, the column it goes in and why, and what its attempts did. */
export interface BoardCard extends TaskFacts {
  column: Column;
  /** Why it is in its column, in words. */
  because: string;
  current: boolean;
  /** One of its attempts is running now. */
  running: boolean;
  /** Its worker's last attempt in the runs read. */
  last?: AttemptRecord;
  /** The Manager's reply on the step of that attempt, when it was not ok. */
  escalated?: AttemptRecord;
  /** Its worker's attempts in the runs read. */
  attempts: number;
  /** What its steps spent (its worker's attempts and the Manager's turns on it). */
  spend: SpendTotal;
  /** The Manager set it aside for a person (kanban.yaml `parked:`), with its question. */
  parked?: ParkedTask;
  /** Its morning figures over the runs read (report/figures.ts), when they were counted. */
  figures?: Figures;
}

/** What the board says, for placing its tasks. */
export interface BoardFields {
  current: string | null;
  phase?: string | null;
  /** The tasks the Manager set aside (kanban.yaml `parked:`). */
  parked?: readonly ParkedTask[];
}

const DONE_WORDS = new Set(['done', 'complete', 'completed', 'closed']);
const BLOCKED_WORDS = new Set(['blocked', 'escalate', 'escalated', 'error', 'failed']);
const TODO_WORDS = new Set(['todo', 'to do', 'open', 'pending', 'waiting', 'new']);

/**
 * The board as cards, in the board's order (pure). `liveRun` is the id of a run that is going on
 * now (its lock is held), if any: only its unfinished attempts are running.
 */
export function boardCards(
  board: BoardFields,
  tasks: readonly TaskFacts[],
  runs: readonly RunRecord[],
  liveRun?: string,
): BoardCard[] {
  const history = new Map<
    string,
    { last?: AttemptRecord; manager?: AttemptRecord; attempts: number; spend: SpendTotal }
  >();
  for (const run of runs)
    for (const a of run.attempts) {
      if (a.trigger !== undefined) continue; // a periodic role's step is about no task
      let seen = history.get(a.task);
      if (!seen) history.set(a.task, (seen = { attempts: 0, spend: emptySpend() }));
      addUsage(seen.spend, a.finished?.usage);
      if (a.manager) {
        seen.manager = a;
        continue;
      }
      seen.attempts++;
      seen.last = a;
    }
  const finished = board.current === null || board.phase === 'complete';
  const aside = new Map((board.parked ?? []).map((entry) => [entry.task, entry]));
  return tasks.map((facts) => {
    const parked = aside.get(facts.task);
    const seen = history.get(facts.task);
    const last = seen?.last;
    const manager = seen?.manager;
    // The Manager's word counts for the worker's last step only.
    const escalated =
      manager && last && manager.run === last.run && manager.step === last.step && managerNotOk(manager)
        ? manager
        : undefined;
    const current = facts.task === board.current;
    const running = liveRun !== undefined && [last, manager].some((a) => a && !a.finished && a.run === liveRun);
    const place = placeOf({ current: current && !finished, running, status: facts.status, last, escalated, parked });
    return {
      ...facts,
      ...place,
      ...(parked && { parked }),
      current,
      running,
      ...(last && { last }),
      ...(escalated && { escalated }),
      attempts: seen?.attempts ?? 0,
      spend: seen?.spend ?? emptySpend(),
    };
  });
}

/**
 * Where a task goes (pure): running now is current; set aside by the Manager (`parked:`) is blocked;
 * current on a board that is not finished is current
 * — unless its last step needs a person (then blocked); else its front-matter `status:` decides
 * when it is a word this knows; else its last outcome in the history: replied ok is done, replied
 * blocked / escalate / error, retries exhausted or escalated by the Manager is blocked; else to do.
 */
export function placeOf(task: {
  current: boolean;
  running: boolean;
  status?: string;
  last?: AttemptRecord;
  escalated?: AttemptRecord;
  parked?: ParkedTask;
}): { column: Column; because: string } {
  if (task.running) return { column: 'current', because: 'running now' };
  if (task.parked) {
    const asked = task.parked.asked ? ' (a person was asked; the next run takes it first)' : '';
    return { column: 'blocked', because: `set aside by the Manager${asked}: ${task.parked.question}` };
  }
  const person = needsPerson(task.last, task.escalated);
  if (task.current)
    return person
      ? { column: 'blocked', because: `current, and its last step ${person}` }
      : { column: 'current', because: 'current in kanban.yaml' };
  const said = task.status?.trim().toLowerCase();
  const because = `status: ${said} in its front-matter`;
  if (said !== undefined && DONE_WORDS.has(said)) return { column: 'done', because };
  if (said !== undefined && BLOCKED_WORDS.has(said)) return { column: 'blocked', because };
  if (said !== undefined && TODO_WORDS.has(said)) return { column: 'todo', because };
  if (person) return { column: 'blocked', because: `its last step ${person}` };
  if (task.last?.finished?.valid && task.last.finished.status === 'ok')
    return { column: 'done', because: 'its last step replied ok' };
  return { column: 'todo', because: task.last ? 'its last step ended without a reply' : 'not run in these runs' };
}

// Why the last step of a task waits for a person, if it does.
function needsPerson(last?: AttemptRecord, escalated?: AttemptRecord): string | undefined {
  if (escalated?.finished) return `was answered ${escalated.finished.status ?? '?'} by the Manager`;
  const end = last?.finished;
  if (!end) return undefined;
  if (end.valid) return end.status === 'ok' ? undefined : `replied ${end.status ?? '?'}`;
  return last.attempt >= last.of ? 'gave no valid reply after every retry' : undefined;
}

function managerNotOk(a: AttemptRecord): boolean {
  return a.finished?.valid === true && a.finished.status !== 'ok';
}
