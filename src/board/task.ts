import { closeSync, openSync, readSync } from 'node:fs';
import { readFailure } from './board.js';
import { InputError } from '../errors.js';
import { parseFrontMatter } from '../util/front-matter.js';
import { resolveInBoard } from './paths.js';

/** What the supervisor reads from a task file: its front-matter only. */
export interface TaskMeta {
  role?: string;
  title?: string;
  [key: string]: unknown;
}

// Agents append their work logs to task files, which can grow large; the
// front-matter is at the top, so only the head is read.
const HEAD_BYTES = 256 * 1024;

/** Read a task's front-matter; a missing file or broken front-matter is an InputError naming the task. */
export function readTaskMeta(boardDir: string, task: string): TaskMeta {
  const where = resolveInBoard(boardDir, task);
  if (!where.ok) throw new InputError(`${task}: the task path ${where.reason}. Fix /current in kanban.yaml.`);
  let head: string;
  try {
    head = readHead(where.absolute);
  } catch (error) {
    throw new InputError(readFailure(task, error).replace('Check the path, or create a board with `kanban-supervisor init`.', 'Create the task file or fix /current in kanban.yaml.'));
  }
  // Editors on Windows may start the file with a byte-order mark; gray-matter skips it too.
  if (!head.replace(/^\uFEFF/, '').startsWith('---')) return {};
  const parsed = parseFrontMatter(head);
  if (!parsed.ok) throw new InputError(`${task}:${parsed.line}: ${parsed.message}. Fix the front-matter between the --- lines.`);
  const role = parsed.data.role;
  if (role !== undefined && role !== null && (typeof role !== 'string' || !/^[A-Za-z][A-Za-z0-9_-]*$/.test(role))) {
    throw new InputError(`${task}: front-matter role must be a role name like Implementor (got ${JSON.stringify(role)}). Fix or remove the role line.`);
  }
  return parsed.data as TaskMeta;
}

function readHead(file: string): string {
  const fd = openSync(file, 'r');
  try {
    const buffer = Buffer.alloc(HEAD_BYTES);
    const size = readSync(fd, buffer, 0, HEAD_BYTES, 0);
    return buffer.subarray(0, size).toString('utf8');
  } finally {
    closeSync(fd);
  }
}
