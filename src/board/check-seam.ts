// The seam of the board's pre-flight check (check.ts): what a capability's check is told and gives back.
import type { AgentInputs } from './inputs.js';
import type { BoardState, Problem } from './read-board.js';
import type { Role } from './role.js';

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
