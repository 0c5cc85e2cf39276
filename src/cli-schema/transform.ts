import { chmodSync, chownSync } from 'node:fs';
import path from 'node:path';
import type { InvocationTransform } from '../agent/prepare.js';
import { CLI_SCHEMA_FIX, handedSchema, withCallOptions } from '../agents/call-options.js';
import { loadReplyRules } from '../board/reply-rules.js';
import { InputError } from '../errors.js';
import { replaceFileAtomic } from '../fs/replace.js';

/**
 * A role with `cli_schema: true` hands its CLI the reply schema (agents/call-options.ts): its option
 * put into the argv, the reply checks it needed reported (with the strict form's plain schema), and
 * the schema file, when the CLI takes one, written once per agent run before its first attempt.
 */
export const cliSchema: InvocationTransform = {
  plan(planned, { run, board, role, manager }) {
    if (!role.cliSchema) return planned;
    const rules = loadReplyRules(board, role, manager, run.schemas, run.env);
    const schema = handedSchema(role.command, manager, rules.extra?.schema);
    if (typeof schema === 'string') throw new InputError(`${role.file}: cli_schema: ${schema}. ${CLI_SCHEMA_FIX}`);
    const { invocation } = planned;
    const handed = withCallOptions(
      invocation.args,
      role.command,
      { schema, ...(schema.file && { schemaPath: path.join(board.dir, schema.file) }) },
      planned.added,
    );
    return {
      ...planned,
      invocation: { ...invocation, args: handed.args },
      rules: schema.strictFrom ? { ...rules, strictFrom: schema.strictFrom } : rules,
      ...(schema.file && { schemaFile: { file: schema.file, text: schema.text } }),
      ...(handed.added && { added: handed.added }),
    };
  },
  write({ schemaFile, invocation }, { board }) {
    if (!schemaFile) return;
    replaceFileAtomic(board.dir, schemaFile.file, schemaFile.text, { mode: 0o644 });
    const user = invocation.wrap?.user;
    if (user) letAgentRead(board.dir, path.posix.dirname(schemaFile.file), user.gid);
  },
};

/**
 * Run by root, a fenced agent is the board folder's owner on the host (its wrapper's user), and the
 * state folder is root's alone (0700): the handed schema's folder is opened to the owner's group
 * only, to pass through (0710, nothing listed), the schema folder itself readable. The state stays
 * root's (so root's own safe writes there go on) and read-only in the fence.
 */
function letAgentRead(boardDir: string, schemaDir: string, gid: number): void {
  const state = path.join(boardDir, schemaDir.split('/')[0] ?? schemaDir);
  chownSync(state, process.getuid?.() ?? 0, gid);
  chmodSync(state, 0o710);
  chmodSync(path.join(boardDir, schemaDir), 0o755);
}
