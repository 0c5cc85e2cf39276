import { closeSync, realpathSync } from 'node:fs';
import { procTarget } from '../fs/real-dir.js';
import { BOARD_NAME } from './locate.js';
import { InputError } from '../errors.js';
import { openRegular, readFromStart } from '../fs/safe-read.js';
import { OwnFileError, ownFileOf } from './task-identity.js';
import { isRoleName } from './role.js';
import { parseFrontMatter } from './front-matter.js';
import { resolveInBoard, type BoardFile } from './paths.js';

/** What the supervisor reads from a task file: its front-matter only. */
export interface TaskMeta {
  role?: string;
  title?: string;
  [key: string]: unknown;
}

// Agents append their work logs to task files, which can grow large (hundreds of MB); the
// front-matter is at the top, so only the head is read.
const HEAD_BYTES = 256 * 1024;

/**
 * A task's front-matter, and the line of each of its keys (for messages). `where` is its path
 * as resolved already, when the caller checked many at once (resolveAllInBoard).
 */
export function readTask(
  boardDir: string,
  task: string,
  boardName = BOARD_NAME,
  where: BoardFile = resolveInBoard(boardDir, task),
): { meta: TaskMeta; lineOf: (pointer: string) => number } {
  if (!where.ok) throw new InputError(`${task}: the task path ${where.reason}. Fix current in kanban.yaml.`);
  const head = readHead(boardDir, boardName, task, where);
  const parsed = parseFrontMatter(head);
  if (!parsed.ok)
    throw new InputError(
      `${task}:${parsed.line}: ${parsed.message}. ` +
        `${parsed.fix ? `${parsed.fix} ` : ''}Fix the front-matter between the --- lines.`,
    );
  const role = parsed.data.role;
  if (role !== undefined && role !== null && !isRoleName(role)) {
    throw new InputError(
      `${task}:${parsed.lineOf('/role')}: front-matter role must be a role name like Implementor ` +
        `(got ${JSON.stringify(role)}). Fix or remove the role line.`,
    );
  }
  return { meta: parsed.data as TaskMeta, lineOf: parsed.lineOf };
}

/** Read a task's front-matter; a missing file or broken front-matter is an InputError naming the task. */
export function readTaskMeta(boardDir: string, task: string, where?: BoardFile): TaskMeta {
  return readTask(boardDir, task, BOARD_NAME, where).meta;
}

// Most front-matter fits in a few lines: the first read is small, and only a file whose
// front-matter goes on is read further (up to HEAD_BYTES).
const FIRST_READ = 8 * 1024;

// Opened without blocking (a FIFO in its place is refused, never waited on) and known by its
// real path and inode: a link to one of the board's own files is refused.
function readHead(
  boardDir: string,
  boardName: string,
  task: string,
  where: { absolute: string; real?: string },
): string {
  let opened;
  try {
    opened = openRegular(where.absolute, task);
  } catch (error) {
    throw new InputError(`${(error as Error).message.replace(/\.$/, '')}, or fix current in kanban.yaml.`);
  }
  if (!opened) throw new InputError(`${task}: no such file. Create the task file or fix current in kanban.yaml.`);
  const { fd, stats } = opened;
  try {
    // Its real path as its folder's listing gave it (a regular file, a moment ago: reads only, and a
    // step reads its task again one by one), else the kernel's path of the open file (one readlink).
    const own = ownFileOf(
      boardDir,
      boardName,
      where.absolute,
      where.real ?? procTarget(fd) ?? realpathSync.native(where.absolute),
      stats,
    );
    if (own) throw new OwnFileError(task, own);
    const first = readFromStart(fd, FIRST_READ);
    const head = first.toString('utf8');
    if (
      first.length < FIRST_READ ||
      !head.replace(/^\uFEFF/, '').startsWith('---') ||
      /\n---[ \t]*(\r?\n|$)/.test(head.slice(3))
    )
      return head;
    return readFromStart(fd, HEAD_BYTES).toString('utf8');
  } finally {
    closeSync(fd);
  }
}
