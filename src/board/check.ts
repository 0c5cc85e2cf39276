import path from 'node:path';
import { readBoardText } from './board-file.js';
import { formatProblem, parseBoard, type BoardState, type Problem, type WrittenText } from './read-board.js';
import { lineOf, parseYaml } from './yaml.js';
import { SupervisorError } from '../errors.js';
import { determineRole, KNOWN_PHASES } from './determine-role.js';
import { closest } from '../util/suggest.js';
import { roleFilePath } from './role.js';
import { resolveSettings } from './settings.js';
import { sameRole } from './role-names.js';
import { finishedNote } from './hints.js';
import { unlistedTasksWarning } from './unlisted-tasks.js';

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

import { startEnv, type BoardCheck, type CheckPlace } from './check-seam.js';
import { checkRoles } from './check-roles.js';
import { taskNeeds, type Found } from './check-tasks.js';

export { startEnv, type BoardCheck, type CheckPlace, type Findings, type Need } from './check-seam.js';

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

  const found: Found = { problems, warnings: [] };
  const { needs, seen } = taskNeeds(state, { dir, name, at }, found);
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

  const checked = checkRoles(needs, place, checks, found);
  const { warnings } = found;
  const access: string[] = [];
  for (const theirs of checks.map((c) => c.board?.(checked, place))) {
    problems.push(...(theirs?.problems ?? []));
    warnings.push(...(theirs?.warnings ?? []));
    access.push(...(theirs?.access ?? []));
  }
  warnings.push(...boardWarnings(state, dir, name, at));
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

// What of the board itself is likely a mistake: task files it does not list, a phase spelt nearly like a known one.
function boardWarnings(state: BoardState, dir: string, name: string, at: (pointer: string) => number): Problem[] {
  const warnings: Problem[] = [];
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
  return warnings;
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
