import { readFileSync } from 'node:fs';
import path from 'node:path';
import { checkCommand } from '../agent/command.js';
import { buildInvocation, fillPlaceholders, type AgentInputs } from '../agent/invocation.js';
import type { Problem } from '../board/board.js';
import { parseDuration } from '../duration.js';
import { SupervisorError } from '../errors.js';
import { parseFrontMatter } from '../frontmatter.js';
import { loadReplyRules } from '../output/rules.js';
import { parseRole, roleFilePath } from '../role/role.js';
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
 * durations, unknown placeholders, a command that is not there, a broken extra schema.
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
  if (problems.length) return dedupe(problems);

  // Only a role that parses can be built into the command the loop would run.
  try {
    const role = parseRole(file, name, text);
    checkCommand(buildInvocation(role, sample, env, boardDir, { timeoutMs: 1, idleTimeoutMs: null }));
    loadReplyRules(boardDir, role, name === 'Manager');
  } catch (error) {
    if (!(error instanceof SupervisorError)) throw error;
    const key = /schema/i.test(error.message) ? '/schema' : '/command/0';
    problems.push(problemFrom(error.message, file, at(key)));
  }
  return problems;
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
