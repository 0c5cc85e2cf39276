import { closeSync, openSync, readSync } from 'node:fs';
import { InputError } from '../errors.js';
import { isRoleName } from './role.js';
import { parseFrontMatter } from './front-matter.js';
import { resolveInBoard } from './paths.js';
import { readFailure } from './read.js';

/** What the supervisor reads from a task file: its front-matter only. */
export interface TaskMeta {
  role?: string;
  title?: string;
  [key: string]: unknown;
}

// Agents append their work logs to task files, which can grow large (hundreds of MB); the
// front-matter is at the top, so only the head is read.
const HEAD_BYTES = 256 * 1024;

/** A task's front-matter, and the line of each of its keys (for messages). */
export function readTask(boardDir: string, task: string): { meta: TaskMeta; lineOf: (pointer: string) => number } {
  const where = resolveInBoard(boardDir, task);
  if (!where.ok) throw new InputError(`${task}: the task path ${where.reason}. Fix current in kanban.yaml.`);
  let head: string;
  try {
    head = readHead(where.absolute);
  } catch (error) {
    throw new InputError(readFailure(task, error, 'Create the task file or fix current in kanban.yaml.'));
  }
  const parsed = parseFrontMatter(head);
  if (!parsed.ok) throw new InputError(`${task}:${parsed.line}: ${parsed.message}. ${parsed.fix ? `${parsed.fix} ` : ''}Fix the front-matter between the --- lines.`);
  const role = parsed.data.role;
  if (role !== undefined && role !== null && !isRoleName(role)) {
    throw new InputError(`${task}:${parsed.lineOf('/role')}: front-matter role must be a role name like Implementor (got ${JSON.stringify(role)}). Fix or remove the role line.`);
  }
  return { meta: parsed.data as TaskMeta, lineOf: parsed.lineOf };
}

/** Read a task's front-matter; a missing file or broken front-matter is an InputError naming the task. */
export function readTaskMeta(boardDir: string, task: string): TaskMeta {
  return readTask(boardDir, task).meta;
}

// Most front-matter fits in a few lines: the first read is small, and only a file whose
// front-matter goes on is read further (up to HEAD_BYTES).
const FIRST_READ = 8 * 1024;

function readHead(file: string): string {
  const fd = openSync(file, 'r');
  try {
    let buffer = Buffer.allocUnsafe(FIRST_READ);
    let size = readSync(fd, buffer, 0, FIRST_READ, 0);
    const head = buffer.toString('utf8', 0, size);
    if (size < FIRST_READ || !head.replace(/^\uFEFF/, '').startsWith('---') || /\n---[ \t]*(\r?\n|$)/.test(head.slice(3))) return head;
    buffer = Buffer.allocUnsafe(HEAD_BYTES);
    size = readSync(fd, buffer, 0, HEAD_BYTES, 0);
    return buffer.toString('utf8', 0, size);
  } finally {
    closeSync(fd);
  }
}
