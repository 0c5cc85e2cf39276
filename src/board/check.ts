import { existsSync } from 'node:fs';
import path from 'node:path';
import type { AgentInputs } from './inputs.js';
import { resolveAllInBoard, type BoardFile } from './paths.js';
import { readBoardText } from './board-file.js';
import { formatProblem, parseBoard, type BoardState, type Problem, type WrittenText } from './read-board.js';
import { readTask } from './task.js';
import { OwnFileError } from './task-identity.js';
import { lineOf, parseYaml } from './yaml.js';
import { SupervisorError } from '../errors.js';
import { checkRole } from './role-check.js';
import { determineRole, KNOWN_PHASES } from './determine-role.js';
import { closest } from '../util/suggest.js';
import { roleFilePath, type Role } from './role.js';
import { createSchemaCompiler } from '../schemas.js';
import { resolveSettings } from './settings.js';
import { runnable } from '../util/self-command.js';
import { parseDuration } from '../util/duration.js';
import { missingRoleHint, roleLookalikes, sameRole } from './role-names.js';
import { roleWarnings } from './role-warnings.js';
import { finishedNote } from './hints.js';
import { unlistedTasksWarning } from './unlisted-tasks.js';
import { fieldWords } from './pointer-words.js';
import { fallbackCycles } from './fallback-chain.js';

/** What `validate` found: every problem, warnings that do not stop a run, and what it checked. */
export interface Validation {
  file: string;
  problems: Problem[];
  warnings: Problem[];
  /** A hint that is neither problem nor warning: how to run a task on a finished board. */
  note?: string;
  tasks: number;
  roles: string[];
  /** On a board with a fenced role: what each role may read, write and run, one line each. */
  access?: string[];
}

/** Where a role is asked for: the inputs a run would give it, and the line that decides it. */
export interface Need {
  inputs: AgentInputs;
  file: string;
  line?: number;
  why: string;
}

/** What a check found: problems stop a run, warnings do not; `access` is what each role may reach, one line each. */
export interface Findings {
  problems: Problem[];
  warnings: Problem[];
  access?: string[];
}

/**
 * What a check is told of the board checked: its folder, file name and state (its settings as written,
 * for a capability's own keys, and the line of a JSON pointer in it), and the environment programs are found in.
 */
export interface CheckPlace {
  dir: string;
  /** kanban.yaml's name. */
  name: string;
  state: BoardState & { settings: Record<string, unknown> };
  /** The line of `/supervisor/notify` and the like in kanban.yaml; undefined when it is not at hand (`try`). */
  at(pointer: string): number | undefined;
  /** The environment as a run starts programs (the checks' `env`). */
  env: NodeJS.ProcessEnv;
  /** The environment as given, PATH whole. */
  given: NodeJS.ProcessEnv;
}

/**
 * The seam where a capability adds to the pre-flight check (validate, a run's start, --dry-run, the
 * watch): its callers hand the checks in (the list: run/capability-list.ts), so board/ names no capability.
 * A check object lives for one checkBoard call, so it may keep what it learns between its calls.
 * - `needs`: roles it runs besides the tasks' and the Manager (periodic roles), each checked like them
 *   (a role already needed is not asked again), and problems of how it names them.
 * - `env`: the environment a run starts programs with, from the one given (a check may take out of
 *   PATH what an agent could write); roles and programs are checked with it.
 * - `role`: each role the board runs that could be read, in the order checked, with the inputs a run
 *   would give it and where it is asked for; its findings are listed with that role's own.
 * - `board`: once, after every role: the roles read (each with its inputs); its problems come after
 *   the roles' and its warnings before the board's own (supervisor.notify, tasks, phase); its `access`
 *   lines, when any check gives some, are the Validation's.
 */
export interface BoardCheck {
  needs?(place: CheckPlace): { problems: Problem[]; needs: Array<[string, Need]> };
  env?(dir: string, env: NodeJS.ProcessEnv): NodeJS.ProcessEnv;
  role?(role: Role, need: Need, place: CheckPlace): Findings;
  board?(roles: ReadonlyArray<{ role: Role; inputs: AgentInputs }>, place: CheckPlace): Findings;
}

/** The environment a run starts programs with: `given` through each check's `env`, in order. */
export function startEnv(dir: string, given: NodeJS.ProcessEnv, checks: readonly BoardCheck[]): NodeJS.ProcessEnv {
  return checks.reduce((sofar, check) => check.env?.(dir, sofar) ?? sofar, given);
}

/**
 * The pre-flight check of a board (what `validate` shows, and what `run` makes before its first
 * agent): the board, every task file and every role file it needs (each task's role, and the
 * Manager), collecting every problem rather than stopping at the first. Reads only; `seen` is
 * the board's text and parse when the caller has read it already, so it is not read twice.
 */
export function checkBoard(
  options: { file: string; env?: NodeJS.ProcessEnv; seen?: WrittenText },
  checks: readonly BoardCheck[] = [],
): Validation {
  const file = path.resolve(options.file);
  // Every program is looked up as the run starts it: with the environment the checks make (said by them, below).
  const given = options.env ?? process.env;
  const env = startEnv(path.dirname(file), given, checks);
  const name = path.basename(file);
  const dir = path.dirname(file);
  const text = options.seen?.text ?? readBoardText(options.file);
  const yaml = options.seen?.text === text ? options.seen.parsed : parseYaml(text);
  const { board, problems } = parseBoard(file, text, yaml);
  if (!yaml.ok) return { file, problems, warnings: [], tasks: 0, roles: [] };
  const at = (pointer: string) => lineOf(yaml.doc, yaml.lines, pointer);
  // A board with schema problems still has task paths worth checking: take what is usable.
  const state = board ?? usable(yaml.value);
  problems.push(...settingProblems(state.settings, name, at));

  const needs = new Map<string, Need>();
  const listed = state.tasks.map((task, i) => ({ task, pointer: `/tasks/${i}` }));
  if (state.current !== null && !state.tasks.includes(state.current))
    listed.push({ task: state.current, pointer: '/current' });
  const seen = new Set<string>();
  const warnings: Problem[] = [];
  // Checked at once: a folder of thousands of tasks is listed, not resolved a path at a time.
  const paths = resolveAllInBoard(
    dir,
    listed.map(({ task }) => task),
  );
  for (const [i, { task, pointer }] of listed.entries()) {
    const where = paths[i] as BoardFile;
    if (!where.ok || seen.has(task)) continue; // a bad path is parseBoard's problem, already listed
    seen.add(task);
    if (where.file !== true && !existsSync(where.absolute)) {
      problems.push({
        file: name,
        line: at(pointer),
        message: `${fieldWords(pointer)} "${task}": no such file. Create it or remove it from tasks.`,
      });
      continue;
    }
    try {
      const { meta, lineOf: taskLine } = readTask(dir, task, name, where);
      const role = determineRole(state, meta);
      const fromTask = typeof meta.role === 'string' && meta.role.length > 0;
      const why = fromTask
        ? { file: task, line: taskLine('/role'), why: `its front-matter asks for role ${role}` }
        : {
            file: name,
            line: at('/phase'),
            why: `${task} runs as ${role} (phase ${JSON.stringify(state.phase ?? null)})`,
          };
      if (!needs.has(role)) needs.set(role, { inputs: { role, kanban_file: name, task_file: task }, ...why });
      for (const key of roleLookalikes(meta)) {
        const runs = fromTask ? `its role: line asks for ${role}` : `it runs as ${role}, from the phase`;
        warnings.push({
          file: task,
          line: taskLine(`/${key}`),
          message:
            `front-matter key "${key}" looks like a misspelt role and is ignored (${runs}). ` +
            `If it names the role to run, rename it to role:.`,
        });
      }
    } catch (error) {
      if (error instanceof OwnFileError)
        problems.push({
          file: name,
          line: at(pointer),
          message:
            `${fieldWords(pointer)} "${task}" ${error.reason}; an agent's work log would be written into it. ` +
            `List a task file of its own there.`,
        });
      else if (!(error instanceof SupervisorError)) throw error;
      else problems.push(problemFrom(error.message, task));
    }
  }
  const first = state.tasks.find((t) => typeof t === 'string') ?? '';
  if (![...needs.keys()].some((role) => sameRole(role, 'Manager')))
    needs.set('Manager', {
      inputs: { role: 'Manager', kanban_file: name, done_task: first, tasks: state.tasks },
      file: roleFilePath('Manager'),
      why: 'every board needs a Manager to pick the next task',
    });
  const place: CheckPlace = { dir, name, state, at, env, given };
  // The roles a capability runs besides the tasks' and the Manager (periodic roles), checked alike.
  for (const asked of checks.map((c) => c.needs?.(place))) {
    problems.push(...(asked?.problems ?? []));
    for (const [role, need] of asked?.needs ?? []) if (!needs.has(role)) needs.set(role, need);
  }

  const compiler = createSchemaCompiler();
  const boardTimeout = parseDuration(state.settings.timeout) ?? undefined;
  const checked: Array<{ role: Role; inputs: AgentInputs }> = [];
  const read = new Map<string, Role>();
  // A Map visits what is added while it is walked: each role's fallbacks are checked after it.
  for (const [role, need] of needs) {
    const check = checkRole(dir, role, need.inputs, env, compiler);
    const known = check.role ?? check.draft;
    if (known) read.set(role.toLowerCase(), known);
    for (const [index, fallback] of (known?.fallback ?? []).entries())
      if (![...needs.keys()].some((name) => sameRole(name, fallback)))
        needs.set(fallback, {
          // A fallback takes the role's steps, so its command is filled with the role's inputs.
          inputs: need.inputs,
          file: known?.file ?? roleFilePath(role),
          ...(known && { line: known.lineOf(`/fallback/${index}`) }),
          why: `${known?.file ?? roleFilePath(role)} names it in fallback:`,
        });
    if (check.role) {
      checked.push({ role: check.role, inputs: need.inputs });
      for (const found of checks.map((c) => c.role?.(check.role as Role, need, place))) {
        problems.push(...(found?.problems ?? []));
        warnings.push(...(found?.warnings ?? []));
      }
    }
    const hint = check.missing ? missingRoleHint(dir, role) : '';
    const readable = check.role ?? check.draft;
    if (readable) warnings.push(...roleWarnings(readable, boardTimeout));
    if (!check.missing) problems.push(...check.problems);
    else if (need.file === roleFilePath(role))
      problems.push({
        file: need.file,
        message: `no such role file, but ${need.why}.${hint} Create it (see \`${runnable('init --help')}\`).`,
      });
    else
      problems.push({
        file: need.file,
        ...(need.line !== undefined && { line: need.line }),
        message:
          `${roleFilePath(role)} does not exist, but ${need.why}.${hint} Create it ` +
          `(see \`${runnable('init --help')}\`) or change the role.`,
      });
  }
  problems.push(...fallbackCycles(read));
  const access: string[] = [];
  for (const found of checks.map((c) => c.board?.(checked, place))) {
    problems.push(...(found?.problems ?? []));
    warnings.push(...(found?.warnings ?? []));
    access.push(...(found?.access ?? []));
  }
  const unlisted = unlistedTasksWarning(dir, [...state.tasks, ...(state.current === null ? [] : [state.current])]);
  if (unlisted) warnings.push({ file: name, line: at('/tasks'), message: unlisted });
  // Any phase is allowed (SPEC §1), but one spelt nearly like a known phase is a typo that runs the wrong role.
  const phaseGuess = typeof state.phase === 'string' ? closest(state.phase, KNOWN_PHASES) : undefined;
  if (phaseGuess !== undefined && phaseGuess !== state.phase)
    warnings.push({
      file: name,
      line: at('/phase'),
      message:
        `phase ${JSON.stringify(state.phase)} is no phase the supervisor knows, so its tasks run as ` +
        `${determineRole({ phase: state.phase }, {})}. Did you mean ${phaseGuess}? Set phase: ${phaseGuess}.`,
    });
  if (state.phase === 'complete' && state.current !== null) {
    warnings.push({
      file: name,
      line: at('/phase'),
      message:
        `phase is complete, so a run stops at once and ${state.current} (current) is not run. ` +
        `To run it, set phase to another value (e.g. execute); if the work is done, set current to null.`,
    });
  }
  // Only a current that is null as written: a board whose current is broken has that problem instead.
  const finished = (yaml.value as { current?: unknown } | null)?.current === null;
  return {
    file,
    problems: ordered(dedupe(problems), [name, ...seen]),
    warnings,
    ...(finished && { note: finishedNote(state.phase ?? null, name) }),
    tasks: seen.size,
    roles: [...needs.keys()],
    ...(access.length > 0 && { access }),
  };
}

// Each of the core's durations and sizes on its own, so that every malformed one is listed.
function settingProblems(settings: Record<string, unknown>, name: string, at: (pointer: string) => number): Problem[] {
  const problems: Problem[] = [];
  for (const key of Object.keys(settings)) {
    try {
      resolveSettings({ [key]: settings[key] }, {});
    } catch (error) {
      if (!(error instanceof SupervisorError)) throw error;
      problems.push({
        file: name,
        line: at(`/supervisor/${key}`),
        message: error.message.replace(/^kanban\.yaml: /, ''),
      });
    }
  }
  return problems;
}

/** A problem from an InputError message that starts `file:line: ` or `file: `. */
function problemFrom(message: string, file: string): Problem {
  const match = new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:(?:(\\d+):)? `).exec(message);
  if (!match) return { file, message };
  return { file, ...(match[1] !== undefined && { line: Number(match[1]) }), message: message.slice(match[0].length) };
}

function usable(value: unknown): BoardState & { settings: Record<string, unknown> } {
  const data = (value && typeof value === 'object' && !Array.isArray(value) ? value : {}) as Record<string, unknown>;
  const tasks = Array.isArray(data.tasks) ? data.tasks.filter((t): t is string => typeof t === 'string') : [];
  const supervisor =
    data.supervisor && typeof data.supervisor === 'object' && !Array.isArray(data.supervisor)
      ? (data.supervisor as Record<string, unknown>)
      : {};
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
  return [...problems].sort(
    (a, b) => (rank.get(a.file) as number) - (rank.get(b.file) as number) || (a.line ?? 0) - (b.line ?? 0),
  );
}

function dedupe(problems: Problem[]): Problem[] {
  const seen = new Set<string>();
  return problems.filter((p) => !seen.has(formatProblem(p)) && seen.add(formatProblem(p)));
}
