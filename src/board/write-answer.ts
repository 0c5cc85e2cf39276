import { isDeepStrictEqual } from 'node:util';
import { InternalError } from '../errors.js';
import { replaceFileAtomic } from '../fs/replace.js';
import { normalPath } from './paths.js';
import path from 'node:path';
import { editYamlDocument, type BoardChange } from './edit.js';
import { readBoardText } from './board-file.js';
import { parseBoard, type Board, type BoardState, type WrittenText } from './read-board.js';

/** The Manager's answer as a change to the board, its paths in normal form (`tasks/./a.md` is written `tasks/a.md`). */
export function managerChange(reply: Record<string, unknown>): BoardChange {
  const next = reply.next_task as string | null;
  const change: BoardChange = {
    current: next === null ? null : normalPath(next),
    tasks: (reply.tasks as string[]).map(normalPath),
  };
  if (typeof reply.phase === 'string') change.phase = reply.phase;
  if (reply.sub_phase !== undefined) change.sub_phase = reply.sub_phase as string | null;
  return change;
}

/** What happened when the answer was written. */
export type WriteOutcome =
  | { written: false; keptHumanEdit: false }
  | { written: true; keptHumanEdit: false; board?: WrittenText }
  | { written: false; keptHumanEdit: true; fields: string[] }
  /** A person changed `fields` during the step: theirs are kept, the answer's other fields written. */
  | { written: true; keptHumanEdit: true; fields: string[]; board?: WrittenText };

// A person saving kanban.yaml while the answer is written is re-checked this many times.
const MAX_TRIES = 3;

/**
 * Write the Manager's answer into kanban.yaml, touching only its fields, atomically. The
 * file is read again first, and once more just before the rename: if a person changed
 * those fields during the step, their version is kept and the answer is not written.
 * Their other edits survive either way, because the change is spliced into the text on disk.
 * A board moved away or deleted meanwhile is a BoardReadError (exit 2): nothing is written, and
 * never a new kanban.yaml in its place.
 */
export function writeManagerAnswer(before: Board, change: BoardChange): WriteOutcome {
  for (let tries = 0; tries < MAX_TRIES; tries++) {
    const text = readBoardText(before.file);
    const now = text === before.text ? before : parseBoard(before.file, text).board;
    // A person broke the file mid-step: leave it for them; the next read reports the problem.
    if (!now) return { written: false, keptHumanEdit: true, fields: ['the whole file (it no longer validates)'] };
    const edited = humanEdits(before, now, change);
    const rest = edited.length ? besideEdits(now, change, edited) : change;
    if (!rest) return { written: false, keptHumanEdit: true, fields: edited };
    const { text: next, parsed } = editYamlDocument(text, now.doc, rest);
    if (next === text)
      return edited.length
        ? { written: false, keptHumanEdit: true, fields: edited }
        : { written: false, keptHumanEdit: false };
    // A guard on the edit itself: the answer's paths were checked with the reply (checkReply).
    const check = parseBoard(before.file, next, parsed, { paths: false });
    if (!check.board)
      throw new InternalError(
        `writing the Manager's answer would make ${before.file} invalid: ${check.problems[0]?.message ?? ''}`,
      );
    // The rename is atomic, but a person's save between our read and the rename would be lost.
    // Gone since the read: no rename, which would make a board from nothing; the next read says why.
    const stillSame = () => {
      try {
        return readBoardText(before.file) === text;
      } catch {
        return false;
      }
    };
    if (replaceFileAtomic(before.dir, path.basename(before.file), next, { stillSame })) {
      const board = parsed && { board: { text: next, parsed } };
      return edited.length
        ? { written: true, keptHumanEdit: true, fields: edited, ...board }
        : { written: true, keptHumanEdit: false, ...board };
    }
  }
  return {
    written: false,
    keptHumanEdit: true,
    fields: ['the whole file (it kept changing while the answer was written)'],
  };
}

// The answer's fields a person left alone, when they can be written beside the person's edit: a
// task added to tasks: mid-step must not leave current on the task that just ran (it would run
// again). A person's own current wins with the rest of the answer; the answer's current must be
// one of the tasks as they are now.
function besideEdits(now: Board, change: BoardChange, edited: string[]): BoardChange | undefined {
  if (edited.includes('current')) return undefined;
  const rest: BoardChange = Object.fromEntries(Object.entries(change).filter(([key]) => !edited.includes(key)));
  if (Object.keys(rest).length === 0) return undefined;
  const tasks = rest.tasks ?? now.tasks;
  if (typeof rest.current === 'string' && !tasks.includes(rest.current)) return undefined;
  return rest;
}

// Fields a person changed since the step read the board, to something other than the answer.
function humanEdits(before: Board, now: Board, change: BoardChange): string[] {
  if (now === before) return [];
  const keys = Object.keys(change) as Array<keyof BoardChange>;
  return keys.filter(
    (k) => !isDeepStrictEqual(field(now, k), field(before, k)) && !isDeepStrictEqual(field(now, k), change[k]),
  );
}

function field(board: BoardState, key: keyof BoardChange): unknown {
  return board[key] ?? null;
}
