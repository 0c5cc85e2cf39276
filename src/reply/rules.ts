import { readFileSync } from 'node:fs';
import { InputError } from '../errors.js';
import { resolveInBoard } from '../board/paths.js';
import type { Role } from '../role/role.js';
import { compileExtra } from '../schemas.js';
import { tryParse, isObject } from './json.js';
import type { ReplyRules } from './validate.js';

/** The checks a role's replies must pass, including the extra schema its role file names. */
export function loadReplyRules(boardDir: string, role: Role, manager: boolean): ReplyRules {
  if (!role.schema) return { manager, boardDir };
  const where = resolveInBoard(boardDir, role.schema);
  if (!where.ok) throw new InputError(`${role.file}: schema "${role.schema}" ${where.reason}.`);
  let text: string;
  try {
    text = readFileSync(where.absolute, 'utf8');
  } catch {
    throw new InputError(`${role.file}: schema file "${role.schema}" cannot be read. Create it or remove the schema line.`);
  }
  const schema = tryParse(text);
  if (!isObject(schema)) throw new InputError(`${role.schema}: is not a JSON object. Write a JSON Schema, e.g. {"type": "object"}.`);
  try {
    return { manager, boardDir, extra: compileExtra(`${where.absolute}\0${text}`, schema) };
  } catch (error) {
    throw new InputError(`${role.schema}: is not a valid JSON Schema (${(error as Error).message}). Fix it or remove the schema line in ${role.file}.`);
  }
}
