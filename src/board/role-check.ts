import path from 'node:path';
import type { Problem } from './read-board.js';
import { AGENTS_DIR, fillPlaceholders, type AgentInputs } from './inputs.js';
import { SupervisorError } from '../errors.js';
import { loadReplyRules } from './reply-rules.js';
import type { SchemaCompiler } from '../schemas.js';
import { findProgram } from '../util/process.js';
import { readRole, type RoleCheck } from './role.js';
import { sameRole } from './role-names.js';
import { CLI_SCHEMA_FIX, handedSchema } from '../agents/call-options.js';
import { programWord } from '../agents/index.js';

const PLACEHOLDER = /\{\{\s*([A-Za-z_]+)\s*\}\}/g;

/**
 * Every problem of one role file, as a run would meet them, each with its line: the
 * front-matter (syntax, schema, durations, unknown keys), unknown placeholders, a command that
 * is not installed, a broken extra schema. `validate` lists them; `run` checks them all before
 * the first agent starts. `sample` are inputs like the loop would give, to fill the command.
 */
export function checkRole(
  boardDir: string,
  name: string,
  sample: AgentInputs,
  env: NodeJS.ProcessEnv,
  compiler: SchemaCompiler,
): RoleCheck {
  const check = readRole(boardDir, name);
  const role = check.role ?? check.draft;
  if (!role) return check;
  const problems: Problem[] = [...check.problems];
  role.command.forEach((part, i) =>
    problems.push(...unknownPlaceholders(part, role.file, role.lineOf(`/command/${i}`))),
  );
  role.prompt
    .split('\n')
    .forEach((line, i) => problems.push(...unknownPlaceholders(line, role.file, role.promptLine + i)));
  // The program, and the model CLI the shipped Manager asks after its `--` (sequential-manager.ts).
  const launched = programWord(role.command)?.index ?? 0;
  const cut = role.command.indexOf('--');
  for (const at of cut >= 0 && launched > cut ? [0, launched] : [0]) {
    const program =
      role.command[at] === undefined
        ? undefined
        : safeFill(role.command[at], { ...sample, agents: AGENTS_DIR }, role.file);
    // The program is looked up as the agent's own environment would: the role's `env:` may set PATH.
    const found = program === undefined ? undefined : findProgram(program, { ...env, ...role.env }, boardDir);
    if (found && 'problem' in found) {
      problems.push({
        file: role.file,
        line: role.lineOf(`/command/${at}`),
        message: `the ${name} command "${program}" ${found.problem}. Install it, or fix \`command:\` in ${role.file}.`,
      });
    }
  }
  // A Manager that sets Backlog.md tasks done runs Backlog.md's CLI after each task: missing, the night would stop at
  // the first.
  const backlog = role.command.includes('--backlog-done')
    ? findProgram('backlog', { ...env, ...role.env }, boardDir)
    : undefined;
  if (backlog && 'problem' in backlog)
    problems.push({
      file: role.file,
      line: role.lineOf('/command'),
      message:
        `the ${name} sets each Backlog.md task done with Backlog.md's CLI (--backlog-done), but "backlog" ` +
        `${backlog.problem}. Install it (npm install -g backlog.md), or put its folder on PATH.`,
    });
  const manager = sameRole(name, 'Manager');
  let extra: unknown;
  if (role.schema !== undefined) {
    try {
      extra = loadReplyRules({ dir: boardDir, file: path.join(boardDir, 'kanban.yaml') }, role, manager, compiler, env)
        .extra?.schema;
    } catch (error) {
      if (!(error instanceof SupervisorError)) throw error;
      problems.push({
        file: role.file,
        line: role.lineOf('/schema'),
        message: error.message.replace(`${role.file}: `, ''),
      });
    }
  }
  const handed = role.cliSchema ? handedSchema(role.command, manager, extra) : undefined;
  if (typeof handed === 'string')
    problems.push({
      file: role.file,
      line: role.lineOf('/cli_schema'),
      message: `cli_schema: ${handed}. ${CLI_SCHEMA_FIX}`,
    });
  return problems.length ? { draft: role, problems } : check;
}

function safeFill(template: string, values: Record<string, unknown>, where: string): string | undefined {
  try {
    return fillPlaceholders(template, values, where);
  } catch {
    return undefined; // an unknown placeholder, reported on its own
  }
}

function unknownPlaceholders(text: string, file: string, line: number): Problem[] {
  const found: Problem[] = [];
  for (const match of text.matchAll(PLACEHOLDER)) {
    try {
      fillPlaceholders(match[0], {}, file); // the loop's own filler decides which names exist
    } catch (error) {
      found.push({ file, line, message: (error as Error).message.replace(`${file}: `, '') });
    }
  }
  return found;
}
