import path from 'node:path';
import { InputError } from '../errors.js';
import { closeSync } from 'node:fs';
import { openRegular, readFromStart } from '../fs/safe-read.js';
import { isObject } from '../reply/json.js';
import type { ManagerAnswer, ReplyRules } from '../reply/check-reply.js';
import type { SchemaCompiler } from '../schemas.js';
import { isWithin, realOr } from '../util/real-path.js';
import { fencedWrites, writablePlace } from './fenced-writes.js';
import { normalPath, resolveAllInBoard, resolveInBoard } from './paths.js';
import { notATaskFile } from './read-board.js';
import type { Role } from './role.js';

// A schema is a few kilobytes; a bigger file is a mistake or a trap (a sparse file of gigabytes).
const SCHEMA_MAX_BYTES = 1024 * 1024;
// The one place in the board folder no fence lets an agent write (read-only in every fence).
const READ_ONLY_DIR = '.kanban-supervisor';

/**
 * The checks a role's replies must pass, including the extra schema its role file names. When a
 * role of the board is fenced, that schema must lie where no fenced agent can write (`env` gives
 * the home folder the fences' `write:` paths expand in): an agent could loosen it or plant a trap.
 */
export function loadReplyRules(
  board: { dir: string; file: string },
  role: Pick<Role, 'file' | 'schema'>,
  manager: boolean,
  compiler: SchemaCompiler,
  env: NodeJS.ProcessEnv,
): ReplyRules {
  const boardDir = board.dir;
  const boardName = path.basename(board.file);
  const paths = (answer: ManagerAnswer) => managerPathIssues(answer, boardDir, boardName);
  if (!role.schema) return { manager, paths };
  const where = resolveInBoard(boardDir, role.schema);
  if (!where.ok) throw new InputError(`${role.file}: schema "${role.schema}" ${where.reason}.`);
  refuseWritable(boardDir, role as { file: string; schema: string }, where.absolute, env);
  let text: string | undefined;
  try {
    text = readSchema(where.absolute, role.schema); // a FIFO in its place is refused, never waited on
  } catch (error) {
    if (error instanceof SchemaTooBig) throw new InputError(`${role.file}: ${error.message}`);
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

class SchemaTooBig extends Error {}

function readSchema(file: string, shown: string): string | undefined {
  const opened = openRegular(file, shown);
  if (!opened) return undefined;
  try {
    if (opened.stats.size > SCHEMA_MAX_BYTES)
      throw new SchemaTooBig(
        `schema file "${shown}" is ${opened.stats.size} bytes, more than a schema's ${SCHEMA_MAX_BYTES} ` +
          `(1 MiB). Point schema: at the JSON Schema itself, or remove the schema line.`,
      );
    return readFromStart(opened.fd, opened.stats.size).toString('utf8');
  } finally {
    closeSync(opened.fd);
  }
}

// Symlinks resolved: a link in the state folder to a schema in the board folder is the board folder's.
function refuseWritable(
  boardDir: string,
  role: { file: string; schema: string },
  file: string,
  env: NodeJS.ProcessEnv,
) {
  const writes = fencedWrites(boardDir, env);
  const place = writes && writablePlace(file, writes);
  if (!place || isWithin(realOr(file), realOr(path.join(boardDir, READ_ONLY_DIR)))) return;
  const name = path.basename(role.schema);
  throw new InputError(
    `${role.file}: schema file "${role.schema}" lies in ${place}, where a fenced agent ` +
      `(${(writes as { roles: string[] }).roles.join(', ')}) can write, and could loosen it. Move it to ` +
      `${READ_ONLY_DIR}/schemas/${name} (read-only in the fence) and set schema: ${READ_ONLY_DIR}/schemas/${name}.`,
  );
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
