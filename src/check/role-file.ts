import { readFileSync } from 'node:fs';
import path from 'node:path';
import { checkCommand } from '../agent/command.js';
import { AGENTS_DIR, fillPlaceholders, type AgentInputs } from '../agent/invocation.js';
import type { Problem } from '../board/board.js';
import { parseDuration } from '../util/duration.js';
import { SupervisorError } from '../errors.js';
import { parseFrontMatter } from '../util/front-matter.js';
import { loadReplyRules } from '../reply/rules.js';
import { roleFilePath, type Role } from '../role/role.js';
import { describeErrors, validator } from '../schemas.js';
import { bodyStartLine, frontMatterLocator, problemFrom } from './locate.js';

const PLACEHOLDER = /\{\{\s*([A-Za-z_]+)\s*\}\}/g;

const FIXES: Array<[RegExp, string]> = [
  [/^\/command|"command"/, 'Set `command:` to the agent\'s argv as a list, e.g. `command: [claude, -p]`.'],
  [/^\/stdin/, 'Use `stdin: prompt`, `stdin: json` or `stdin: none`.'],
  [/^\/output/, 'Use `output: auto` unless you need a named strategy.'],
  [/^\/env/, 'Give `env:` as a mapping of names to strings.'],
];

/**
 * Every problem of one role file at once, each with its line: front-matter syntax and schema,
 * durations, unknown placeholders, a command that is not there, a broken extra schema. Each
 * check reuses the loop's own (placeholders, command lookup, reply rules), so validate and a
 * run cannot disagree.
 * `sample` are inputs like the loop would give, to build the command as it would run.
 * Returns null when the file does not exist (the caller knows who needed it).
 */
export function checkRoleFile(boardDir: string, name: string, sample: AgentInputs, env: NodeJS.ProcessEnv): Problem[] | null {
  const file = roleFilePath(name);
  let text: string;
  try {
    text = readFileSync(path.join(boardDir, file), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    return [{ file, message: `cannot be read (${(error as Error).message}).` }];
  }
  const parsed = parseFrontMatter(text);
  if (!parsed.ok) return [{ file, line: parsed.line, message: `${parsed.message}. Fix the front-matter between the --- lines.` }];
  if (!text.startsWith('---')) return [{ file, line: 1, message: 'has no front-matter. Start it with ---, a `command: [...]` line and ---.' }];

  const at = frontMatterLocator(text);
  const problems: Problem[] = [];
  const validate = validator('role');
  if (!validate(parsed.data)) {
    for (const error of validate.errors ?? []) {
      const text = describeErrors([error], parsed.data)[0];
      if (!text) continue;
      const fix = FIXES.find(([pattern]) => pattern.test(text))?.[1] ?? '';
      problems.push({ file, line: at(error.instancePath), message: `front-matter ${text}. ${fix}`.trim() });
    }
  }
  for (const key of ['timeout', 'idle_timeout']) {
    const value = parsed.data[key];
    if (value !== undefined && value !== null && parseDuration(value) === null) {
      problems.push({ file, line: at(`/${key}`), message: `front-matter /${key} must be a duration like 90s, 20m or 1h30m (got ${JSON.stringify(value)}).` });
    }
  }
  const command = Array.isArray(parsed.data.command) ? parsed.data.command : [];
  command.forEach((part, i) => {
    if (typeof part === 'string') problems.push(...unknownPlaceholders(part, file, at(`/command/${i}`)));
  });
  const bodyStart = bodyStartLine(text);
  parsed.body.split('\n').forEach((line, i) => problems.push(...unknownPlaceholders(line, file, bodyStart + i)));
  const program = command[0];
  if (typeof program === 'string' && program.length > 0) problems.push(...commandProblems(program, file, name, { boardDir, sample, env }, at('/command/0')));
  if (typeof parsed.data.schema === 'string') {
    const role: Role = { name, file, schema: parsed.data.schema, command: [], stdin: 'none', output: 'auto', env: {}, prompt: '' };
    try {
      loadReplyRules(boardDir, role, name === 'Manager');
    } catch (error) {
      if (!(error instanceof SupervisorError)) throw error;
      problems.push(problemFrom(error.message, file, at('/schema')));
    }
  }
  return dedupe(problems);
}

// Whether the program the loop would start exists: the same lookup, with placeholders filled as a run fills them.
function commandProblems(program: string, file: string, role: string, where: { boardDir: string; sample: AgentInputs; env: NodeJS.ProcessEnv }, line: number): Problem[] {
  let filled: string;
  try {
    filled = fillPlaceholders(program, { ...where.sample, agents: AGENTS_DIR }, file);
  } catch {
    return []; // an unknown placeholder, already reported
  }
  try {
    checkCommand({ file: filled, cwd: where.boardDir, env: stringEnv(where.env), roleFile: file, role });
    return [];
  } catch (error) {
    if (!(error instanceof SupervisorError)) throw error;
    return [problemFrom(error.message, file, line)];
  }
}

function stringEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined));
}

function unknownPlaceholders(text: string, file: string, line: number): Problem[] {
  const found: Problem[] = [];
  for (const match of text.matchAll(PLACEHOLDER)) {
    try {
      // The loop's own filler decides which names exist.
      fillPlaceholders(match[0], {}, file);
    } catch (error) {
      found.push(problemFrom((error as Error).message, file, line));
    }
  }
  return found;
}

function dedupe(problems: Problem[]): Problem[] {
  const seen = new Set<string>();
  return problems.filter((p) => {
    const key = `${p.line}\0${p.message}`;
    return !seen.has(key) && seen.add(key);
  });
}
