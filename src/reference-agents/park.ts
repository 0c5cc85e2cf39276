/**
 * Setting tasks aside (`sequential-manager.js --park`), pure. The record is kanban.yaml's `parked:`
 * list, where a person sees and edits it; the supervisor only shows it (status, report, events):
 *
 *   parked:
 *     - task: tasks/002-api.md
 *       question: "Which database should it use?"
 *       asked: true        # the run stopped and asked a person: the next run takes it first
 *
 * A task is set aside when its worker's reply is not ok and the run goes on with the rest. When
 * nothing else is left the Manager stops the run for a person, naming every parked task, and marks
 * each `asked`; the next run takes those first (the person answered in the task file, or did what
 * was asked elsewhere). A person may also delete an entry: the task is then an ordinary one again.
 */
import type { ParkedTask } from '../board/parked.js';

/** The longest question kept in kanban.yaml; the whole reply is in the task's work log and the run's events. */
export const QUESTION_LIMIT = 1000;

/** `task` set aside with its worker's words (bounded); an earlier entry for it is replaced (pure). */
export function park(parked: readonly ParkedTask[], task: string, status: string, message: string): ParkedTask[] {
  const words = message.length > QUESTION_LIMIT ? `${message.slice(0, QUESTION_LIMIT)}… (see its work log)` : message;
  return [...parked.filter((entry) => entry.task !== task), { task, question: `${status}: ${words}` }];
}

/** What the Manager answers: the next task, the parked list to record, and whether the run stops for a person. */
export interface Choice {
  next: string | null;
  parked: ParkedTask[];
  /** Nothing runnable is left but parked tasks: stop for a person (the message names them). */
  halt?: string;
}

/**
 * The next task: a parked one a person was asked about first, then the first task in the list
 * neither done nor parked; when only parked tasks are left, the first of them with a halt that names
 * them all (each marked `asked`). Entries for tasks done or no longer listed are dropped (pure).
 */
export function chooseNext(tasks: readonly string[], isDone: (task: string) => boolean, parked: ParkedTask[]): Choice {
  const listed = new Set(tasks);
  const live = parked.filter((entry) => listed.has(entry.task) && !isDone(entry.task));
  const answered = live.find((entry) => entry.asked);
  if (answered) return { next: answered.task, parked: live };
  const aside = new Set(live.map((entry) => entry.task));
  const next = tasks.find((task) => !aside.has(task) && !isDone(task));
  if (next !== undefined) return { next, parked: live };
  const first = live[0];
  if (!first) return { next: null, parked: live };
  return {
    next: first.task,
    parked: live.map((entry) => ({ ...entry, asked: true })),
    halt:
      `Nothing left to run but ${live.length} task(s) set aside for a person: ` +
      `${live.map((entry) => `${entry.task} (${entry.question})`).join('; ')}. ` +
      `Answer in each task file (or remove its entry from parked: in kanban.yaml), then run again: ` +
      `they run first.`,
  };
}
