import path from 'node:path';
import { InputError } from '../errors.js';
import { readRegular } from '../fs/safe-read.js';
import { isObject } from '../reply/json.js';
import type { ManagerAnswer, ReplyRules } from '../reply/check-reply.js';
import type { SchemaCompiler } from '../schemas.js';
import { normalPath, resolveAllInBoard, resolveInBoard } from './paths.js';
import { notATaskFile } from './read-board.js';
import type { Role } from './role.js';

/** The checks a role's replies must pass, including the extra schema its role file names. */
export function loadReplyRules(
  board: { dir: string; file: string },
  role: Pick<Role, 'file' | 'schema'>,
  manager: boolean,
  compiler: SchemaCompiler,
): ReplyRules {
  const boardDir = board.dir;
  const boardName = path.basename(board.file);
  const paths = (answer: ManagerAnswer) => managerPathIssues(answer, boardDir, boardName);
  if (!role.schema) return { manager, paths };
  const where = resolveInBoard(boardDir, role.schema);
  if (!where.ok) throw new InputError(`${role.file}: schema "${role.schema}" ${where.reason}.`);
  let text: string | undefined;
  try {
    text = readRegular(where.absolute, role.schema); // a FIFO in its place is refused, never waited on
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    throw new InputError(
      `${role.file}: schema file ${error.message.replace(/\.$/, '').replace(': ', ' ')}, or remove the schema line.`,
    );
  }
  if (text === undefined)
    throw new InputError(
      `${role.file}: schema file "${role.schema}" cannot be read. Create it or remove the schema line.`,
    );
  let schema: unknown;
  try {
    schema = JSON.parse(text);
  } catch {
    schema = undefined;
  }
  if (!isObject(schema))
    throw new InputError(`${role.schema}: is not a JSON object. Write a JSON Schema, e.g. {"type": "object"}.`);
  try {
    return { manager, paths, extra: compiler.compile(`${where.absolute}\0${text}`, schema) };
  } catch (error) {
    throw new InputError(
      `${role.schema}: is not a valid JSON Schema (${(error as Error).message}). ` +
        `Fix it or remove the schema line in ${role.file}.`,
    );
  }
}

// Paths are compared in their normal form (`tasks/./a.md` is `tasks/a.md`), the form written to the board.
function managerPathIssues(reply: ManagerAnswer, boardDir: string, boardName: string): string[] {
  const issues: string[] = [];
  const listed = new Map<string, number>();
  resolveAllInBoard(boardDir, reply.tasks).forEach((where, i) => {
    const task = reply.tasks[i] as string;
    const normal = normalPath(task);
    const first = listed.get(normal);
    const notTask = notATaskFile(normal, boardName);
    if (!where.ok) issues.push(`/tasks/${i} "${task}" ${where.reason}`);
    else if (notTask) issues.push(`/tasks/${i} "${task}" is ${notTask}, not a task file`);
    else if (!where.file) issues.push(`/tasks/${i} "${task}" is not an existing file in the board folder`);
    else if (first !== undefined) issues.push(`/tasks/${i} "${task}" is already listed as /tasks/${first}`);
    listed.set(normal, first ?? i);
  });
  if (reply.next_task !== null && !listed.has(normalPath(reply.next_task)))
    issues.push(`/next_task "${reply.next_task}" is not in /tasks`);
  return issues;
}
