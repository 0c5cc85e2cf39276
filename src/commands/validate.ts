import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { AgentInputs } from '../agent/invocation.js';
import { formatProblem, parseBoard, readFailure, type BoardState, type Problem } from '../board/board.js';
import { lineOf, parseYaml } from '../board/yaml.js';
import { frontMatterLocator, problemFrom } from '../check/locate.js';
import { checkRoleFile } from '../check/role-file.js';
import { parseDuration } from '../util/duration.js';
import { InputError, SupervisorError } from '../errors.js';
import { resolveInBoard } from '../board/paths.js';
import { determineRole } from '../role/determine.js';
import { roleFilePath } from '../role/role.js';
import { readTaskMeta } from '../board/task.js';

/** What `validate` found: every problem, and what it checked. */
export interface Validation {
  file: string;
  problems: Problem[];
  tasks: number;
  roles: string[];
}

/** Where a role is asked for: the first task that needs it, and the line that decides it. */
interface Need {
  inputs: AgentInputs;
  file: string;
  line: number;
  why: string;
}

/**
 * `kanban-supervisor validate`: check the board, every task file and every role file it needs
 * (each task's role, and the Manager), collecting all problems rather than stopping at the first.
 * Reads only. Problem files are relative to the board folder.
 */
export function validate(options: { file: string; env?: NodeJS.ProcessEnv }): Validation {
  const file = path.resolve(options.file);
  const env = options.env ?? process.env;
  const name = path.basename(file);
  const dir = path.dirname(file);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new InputError(readFailure(options.file, error));
  }
  const { board, problems } = parseBoard(file, text);
  const yaml = parseYaml(text);
  if (!yaml.ok) return { file, problems, tasks: 0, roles: [] };
  const at = (pointer: string) => lineOf(yaml.doc, yaml.lines, pointer);
  // A board with schema problems still has task paths worth checking: take what is usable.
  const state = board ?? usable(yaml.value);

  for (const key of ['timeout', 'idle_timeout', 'kill_grace']) {
    const value = (state.settings as Record<string, unknown>)[key];
    if (value !== undefined && parseDuration(value) === null) problems.push({ file: name, line: at(`/supervisor/${key}`), message: `/supervisor/${key} must be a duration like 90s, 20m or 1h30m (got ${JSON.stringify(value)}).` });
  }

  const needs = new Map<string, Need>();
  const listed = state.tasks.map((task, i) => ({ task, pointer: `/tasks/${i}` }));
  if (state.current !== null && !state.tasks.includes(state.current)) listed.push({ task: state.current, pointer: '/current' });
  const seen = new Set<string>();
  for (const { task, pointer } of listed) {
    const where = resolveInBoard(dir, task);
    if (!where.ok || seen.has(task)) continue; // a bad path is parseBoard's problem, already listed
    seen.add(task);
    if (!existsSync(where.absolute)) {
      problems.push({ file: name, line: at(pointer), message: `${pointer} "${task}": no such file. Create it or remove it from /tasks.` });
      continue;
    }
    try {
      const meta = readTaskMeta(dir, task);
      const role = determineRole(state, meta);
      const fromTask = typeof meta.role === 'string' && meta.role.length > 0;
      if (!needs.has(role)) {
        needs.set(role, {
          inputs: { role, kanban_file: name, task_file: task },
          ...(fromTask ? { file: task, line: frontMatterLocator(readFileSync(where.absolute, 'utf8'))('/role'), why: `its front-matter asks for role ${role}` } : { file: name, line: at('/phase'), why: `${task} runs as ${role} (phase ${JSON.stringify(state.phase ?? null)})` }),
        });
      }
    } catch (error) {
      if (!(error instanceof SupervisorError)) throw error;
      // A role that is not a name is reported without a line: find the line of its key.
      const roleLine = /front-matter role /.test(error.message) ? frontMatterLocator(readFileSync(where.absolute, 'utf8'))('/role') : undefined;
      problems.push(problemFrom(error.message, task, roleLine));
    }
  }
  const first = state.tasks.find((t) => typeof t === 'string') ?? '';
  needs.set('Manager', needs.get('Manager') ?? { inputs: { role: 'Manager', kanban_file: name, done_task: first, tasks: state.tasks }, file: roleFilePath('Manager'), line: 0, why: 'every board needs a Manager to pick the next task' });

  for (const [role, need] of needs) {
    const found = checkRoleFile(dir, role, need.inputs, env);
    if (found) problems.push(...found);
    else if (need.file === roleFilePath(role)) problems.push({ file: need.file, message: `no such role file, but ${need.why}. Create it (see \`kanban-supervisor init\`).` });
    else problems.push({ file: need.file, ...(need.line > 0 && { line: need.line }), message: `${roleFilePath(role)} does not exist, but ${need.why}. Create it (see \`kanban-supervisor init\`) or change the role.` });
  }
  return { file, problems: ordered(dedupe(problems), [name, ...seen]), tasks: seen.size, roles: [...needs.keys()] };
}

/** The validation as lines `file:line: message` (paths relative to `cwd`) and a summary (pure). */
export function formatValidation(result: Validation, cwd: string): string {
  const dir = path.relative(cwd, path.dirname(result.file));
  const shown = (problem: Problem) => formatProblem({ ...problem, file: path.join(dir, problem.file) });
  const name = path.join(dir, path.basename(result.file));
  if (result.problems.length === 0) return `${name}: OK — ${result.tasks} task file(s) and ${result.roles.length} role file(s) (${result.roles.join(', ')}) checked.\n`;
  return `${result.problems.map(shown).join('\n')}\n${result.problems.length} problem(s) found; nothing was run or changed.\n`;
}

function usable(value: unknown): BoardState & { settings: object } {
  const data = (value && typeof value === 'object' && !Array.isArray(value) ? value : {}) as Record<string, unknown>;
  const tasks = Array.isArray(data.tasks) ? data.tasks.filter((t): t is string => typeof t === 'string') : [];
  const supervisor = data.supervisor && typeof data.supervisor === 'object' ? data.supervisor : {};
  return {
    current: typeof data.current === 'string' ? data.current : null,
    tasks,
    settings: supervisor,
    ...(typeof data.phase === 'string' && { phase: data.phase }),
    ...(typeof data.sub_phase === 'string' && { sub_phase: data.sub_phase }),
  };
}

// kanban.yaml first, then the tasks in board order, then the role files; each file by line.
function ordered(problems: Problem[], files: string[]): Problem[] {
  const rank = new Map<string, number>(files.map((f, i) => [f, i]));
  for (const p of problems) if (!rank.has(p.file)) rank.set(p.file, rank.size);
  return [...problems].sort((a, b) => (rank.get(a.file) as number) - (rank.get(b.file) as number) || (a.line ?? 0) - (b.line ?? 0));
}

function dedupe(problems: Problem[]): Problem[] {
  const seen = new Set<string>();
  return problems.filter((p) => !seen.has(formatProblem(p)) && seen.add(formatProblem(p)));
}
