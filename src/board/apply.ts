import { readFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { parseDocument } from 'yaml';
import { InternalError } from '../errors.js';
import { writeFileAtomic } from './atomic.js';
import { parseBoard, type Board, type BoardState } from './board.js';
import { editYamlDocument, type BoardChange } from './edit.js';
import { settleDoc, spliceScalarLines } from './line-splice.js';
import { validator } from '../schemas.js';

/** The Manager's answer as a change to the board. */
export function managerChange(reply: Record<string, unknown>): BoardChange {
  const change: BoardChange = { current: reply.next_task as string | null, tasks: reply.tasks as string[] };
  if (typeof reply.phase === 'string') change.phase = reply.phase;
  if (reply.sub_phase !== undefined) change.sub_phase = reply.sub_phase as string | null;
  return change;
}

/** What happened when the answer was written; `board` is the board now on disk, already checked. */
export type ApplyOutcome = { written: boolean; keptHumanEdit: false; board: Board } | { written: false; keptHumanEdit: true; fields: string[] };

/**
 * Write the Manager's answer into kanban.yaml, touching only its fields. The file is
 * re-read first: if a person changed those fields during the step to something other
 * than the answer, their version is kept. Other edits they made survive either way,
 * because the change is applied to the text now on disk.
 */
export function applyManagerAnswer(before: Board, change: BoardChange): ApplyOutcome {
  const text = readFileSync(before.file, 'utf8');
  const now = text === before.text ? before : parseBoard(before.file, text).board;
  const keys = Object.keys(change) as Array<keyof BoardChange>;
  // A person broke the file mid-step: leave it for them; the next read reports the problem.
  if (!now) return { written: false, keptHumanEdit: true, fields: ['the whole file (it no longer validates)'] };
  if (now !== before) {
    const edited = keys.filter((k) => !isDeepStrictEqual(field(now, k), field(before, k)) && !isDeepStrictEqual(field(now, k), change[k]));
    if (edited.length) return { written: false, keptHumanEdit: true, fields: edited };
  }
  const quick = now.doc && spliceScalarLines(text, now.doc, { ...now }, change);
  if (quick) return writeQuick(now, change, quick);
  const { text: next, parsed } = editYamlDocument(text, now.doc ? settleDoc(now.doc) : parseDocument(text), change);
  if (next === text) return { written: false, keptHumanEdit: false, board: now };
  const check = parseBoard(before.file, next, parsed);
  if (!check.board) throw new InternalError(`writing the Manager's answer would make ${before.file} invalid: ${check.problems[0]?.message ?? ''}`);
  writeFileAtomic(before.file, next);
  return { written: true, keptHumanEdit: false, board: check.board };
}

function field(board: BoardState, key: keyof BoardChange): unknown {
  return board[key] ?? null;
}

// The answer changed only scalar fields, each checked on its own line; the task list is the
// one the Manager's reply was just checked against (every path inside the board and a file),
// so what is left to check is the board's schema for the new values.
function writeQuick(now: Board, change: BoardChange, quick: { text: string; moveDoc: () => void }): ApplyOutcome {
  if (quick.text === now.text) return { written: false, keptHumanEdit: false, board: now };
  const board: Board = { ...now, ...change, text: quick.text };
  const state = { current: board.current, tasks: board.tasks, ...(board.phase !== undefined && { phase: board.phase }), ...(board.sub_phase !== undefined && { sub_phase: board.sub_phase }) };
  if (!validator('kanban')(state) || (board.current !== null && !board.tasks.includes(board.current))) {
    throw new InternalError(`writing the Manager's answer would make ${now.file} invalid (current ${JSON.stringify(board.current)})`);
  }
  writeFileAtomic(now.file, quick.text);
  quick.moveDoc();
  return { written: true, keptHumanEdit: false, board };
}
