import { readFileSync } from 'node:fs';
import path from 'node:path';
import { resolveInBoard } from '../board/paths.js';
import { InputError } from '../errors.js';
import type { Role } from '../board/role.js';
import type { SchemaCompiler } from '../schemas.js';
import { isObject } from './json.js';
import type { ReplyRules } from './validate.js';

/** The checks a role's replies must pass, including the extra schema its role file names. */
export function loadReplyRules(board: { dir: string; file: string }, role: Pick<Role, 'file' | 'schema'>, manager: boolean, compiler: SchemaCompiler): ReplyRules {
  const boardDir = board.dir;
  const boardName = path.basename(board.file);
  if (!role.schema) return { manager, boardDir, boardName };
  const where = resolveInBoard(boardDir, role.schema);
  if (!where.ok) throw new InputError(`${role.file}: schema "${role.schema}" ${where.reason}.`);
  let text: string;
  try {
    text = readFileSync(where.absolute, 'utf8');
  } catch {
    throw new InputError(`${role.file}: schema file "${role.schema}" cannot be read. Create it or remove the schema line.`);
  }
  let schema: unknown;
  try {
    schema = JSON.parse(text);
  } catch {
    schema = undefined;
  }
  if (!isObject(schema)) throw new InputError(`${role.schema}: is not a JSON object. Write a JSON Schema, e.g. {"type": "object"}.`);
  try {
    return { manager, boardDir, boardName, extra: compiler.compile(`${where.absolute}\0${text}`, schema) };
  } catch (error) {
    throw new InputError(`${role.schema}: is not a valid JSON Schema (${(error as Error).message}). Fix it or remove the schema line in ${role.file}.`);
  }
}
