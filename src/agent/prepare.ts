import path from 'node:path';
import type { Board } from '../board/read-board.js';
import type { OutputStrategy } from '../reply/extract.js';
import type { FailurePatterns } from '../reply/failure-patterns.js';
import { loadReplyRules } from '../board/reply-rules.js';
import type { ReplyRules } from '../reply/check-reply.js';
import { sameRole } from '../board/role-names.js';
import { loadRole, roleFilePath, type Role } from '../board/role.js';
import type { SchemaCompiler } from '../schemas.js';
import type { Settings } from '../board/settings.js';
import { checkCommand } from './command.js';
import type { AgentInputs } from '../board/inputs.js';
import { buildInvocation, type Invocation } from './invocation.js';
import { agentTag, TAG_VARIABLE } from './tag.js';
import { InputError } from '../errors.js';
import { ownPaths } from '../board/task-identity.js';

/** An agent run made ready: the invocation every attempt repeats exactly, and how its reply is judged. */
export interface PreparedAgent {
  invocation: Invocation;
  output: OutputStrategy;
  rules: ReplyRules;
  /** The role's own patterns for its CLI's failures, if it declares any. */
  failures?: FailurePatterns;
}

/**
 * What preparing an agent takes from its run: the environment agents inherit,
 * the run's id (in the agent's tag), the reply schemas and the invocation's transforms.
 */
export interface AgentRun {
  env: NodeJS.ProcessEnv;
  runId: string;
  schemas: SchemaCompiler;
  /**
   * What this run spent so far (the capabilities' `spent()`, passed in by loop/loop.ts; none for `try` and
   * --dry-run): read once per agent run, for its budget left (budget/call-budget.ts).
   */
  spend?: { total: { costUsd: number } };
  /** What changes the plain invocation, in order (the list and why it is so: run/invocation-transforms.ts). */
  transforms: readonly InvocationTransform[];
}

/** What an invocation's transforms are given besides the plan: the agent run's run, board, settings and role. */
export interface InvocationPlace {
  run: Omit<AgentRun, 'transforms'>;
  board: Board;
  settings: Settings;
  role: Role;
  /** Whether the role is the Manager's. */
  manager: boolean;
  /** The board's own files and folders (board-relative, board/task-identity.ts): no agent writes them. */
  own: readonly string[];
}

/**
 * The seam where an invocation is prepared: one capability's change to an agent run's plan (the
 * reply schema handed to the CLI, the call's budget, the fence; fallback agents next),
 * made once per agent run so every retry repeats it. Each transform gets what the one before it made.
 */
export interface InvocationTransform {
  /**
   * The plan as this capability changes it (its invocation, and what it reports: `problem`, `schemaFile`…).
   * Writes nothing (--dry-run shows the same); an InputError naming the role file when it cannot be made.
   */
  plan(planned: PlannedAgent, place: InvocationPlace): PlannedAgent;
  /** Before a run's first attempt (not --dry-run): why the plan cannot run here, if so (a setup problem to name). */
  problem?(planned: PlannedAgent): string | undefined;
  /** Once per agent run, after every check and before its first attempt: write what the invocation reads. */
  write?(planned: PlannedAgent, place: InvocationPlace): void;
}

/**
 * Read the role, build the invocation once and check it can run (shared with --dry-run, so
 * both build the very same thing). Every problem is an InputError naming the role file.
 */
export function prepareAgent(
  ctx: AgentRun,
  board: Board,
  settings: Settings,
  inputs: AgentInputs,
  step: number,
  agent?: string,
): PreparedAgent {
  const { planned, place } = plan(ctx, board, settings, inputs, step, agent);
  const { role, invocation } = planned;
  // Asked for every agent run, not only at a run's start: `try` has none, and a fence bwrap cannot
  // build is a setup problem to name, not invalid output to retry.
  let problem = planned.problem;
  for (const transform of ctx.transforms) problem ??= transform.problem?.(planned);
  if (problem !== undefined) throw new InputError(`${role.file}: ${problem}`);
  checkCommand(invocation);
  // Once per agent run, before its first attempt: every retry reads the very same files.
  for (const transform of ctx.transforms) transform.write?.(planned, place);
  return {
    invocation,
    output: role.output,
    rules: planned.rules ?? loadReplyRules(board, role, place.manager, ctx.schemas, ctx.env),
    ...(role.failures && { failures: role.failures }),
  };
}

/** An agent run as planned: its role and invocation, and what its transforms report. */
export interface PlannedAgent {
  role: Role;
  invocation: Invocation;
  /** Why it cannot run here, e.g. its fence cannot be built (--dry-run shows it as a warning; a run stops at it). */
  problem?: string;
  /** The reply checks, when handing the schema needed them already. */
  rules?: ReplyRules;
  /** The schema file to write before the first attempt (board-relative) and its text. */
  schemaFile?: { file: string; text: string };
  /** Where the options handed to the CLI went into the argv (so the role's own elements are found). */
  added?: { at: number; count: number };
}

/**
 * The role (or `agent`, a fallback of it) and the invocation an agent run would use, its command
 * not yet checked, as the run's transforms make it (the reply schema with `cli_schema: true`, the
 * run's budget left, the fence). Writes nothing itself (--dry-run shows the same).
 */
export function planAgent(
  ctx: AgentRun,
  board: Board,
  settings: Settings,
  inputs: AgentInputs,
  step: number,
  agent?: string,
): PlannedAgent {
  return plan(ctx, board, settings, inputs, step, agent).planned;
}

function plan(
  ctx: AgentRun,
  board: Board,
  settings: Settings,
  inputs: AgentInputs,
  step: number,
  agent: string | undefined,
): { planned: PlannedAgent; place: InvocationPlace } {
  const wantedBy = inputs.task_file ?? path.basename(board.file);
  // A fallback's role file runs the role's step: its command, body and settings, the role's name and inputs.
  const role = agent
    ? { ...loadRole(board.dir, agent, `${roleFilePath(inputs.role)} (fallback:)`), name: inputs.role }
    : loadRole(board.dir, inputs.role, wantedBy);
  const own = ownPaths(path.basename(board.file));
  const { transforms, ...run } = ctx;
  const place = {
    run,
    board,
    settings,
    role,
    manager: sameRole(inputs.role, 'Manager'),
    own: [...own.files, ...own.folders],
  };
  const built = buildInvocation(role, inputs, {
    boardDir: board.dir,
    own: place.own,
    env: ctx.env,
    limits: {
      timeoutMs: role.timeoutMs ?? settings.timeoutMs,
      idleTimeoutMs: role.idleTimeoutMs ?? settings.idleTimeoutMs,
      killGraceMs: settings.killGraceMs,
    },
    tag: agentTag({ board: board.file, run: ctx.runId, step, role: inputs.role }, ctx.env[TAG_VARIABLE]),
  });
  const planned = transforms.reduce((sofar: PlannedAgent, transform) => transform.plan(sofar, place), {
    role,
    invocation: { ...built, ...(agent && { agent }) },
  });
  return { planned, place };
}
