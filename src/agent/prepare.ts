import path from 'node:path';
import type { Board } from '../board/read.js';
import type { OutputStrategy } from '../reply/extract.js';
import type { FailurePatterns } from '../reply/failure-patterns.js';
import { loadReplyRules } from '../board/reply-rules.js';
import type { ReplyRules } from '../reply/validate.js';
import { sameRole } from '../board/role-names.js';
import { loadRole, type Role } from '../board/role.js';
import type { SchemaCompiler } from '../schemas.js';
import type { Settings } from '../board/settings.js';
import { checkCommand } from './command.js';
import type { AgentInputs } from '../board/inputs.js';
import { buildInvocation, type Invocation } from './invocation.js';
import { agentTag, TAG_VARIABLE } from './tag.js';
import { InputError } from '../errors.js';
import { buildFence } from '../sandbox/fence.js';
import { fencePlace } from '../sandbox/place.js';
import { ownPaths } from '../board/identity.js';
import { findBubblewrap, probeFence } from '../sandbox/probe.js';

/** An agent run made ready: the invocation every attempt repeats exactly, and how its reply is judged. */
export interface PreparedAgent {
  invocation: Invocation;
  output: OutputStrategy;
  rules: ReplyRules;
  /** The role's own patterns for its CLI's failures, if it declares any. */
  failures?: FailurePatterns;
}

/** What preparing an agent takes from its run: the environment agents inherit, the run's id (in the agent's tag) and the reply schemas. */
export interface AgentRun {
  env: NodeJS.ProcessEnv;
  runId: string;
  schemas: SchemaCompiler;
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
): PreparedAgent {
  const { role, invocation, unfenceable } = planAgent(ctx, board, settings, inputs, step);
  // Probed for every fenced agent run, not only at a run's start: `try` has none, and a bwrap
  // that cannot build the fence is a setup problem to name, not invalid output to retry.
  const problem = unfenceable ?? (invocation.fence && probeFence(invocation.fence.program, invocation.fence.network));
  if (problem !== undefined) throw new InputError(`${role.file}: ${problem}`);
  checkCommand(invocation);
  return {
    invocation,
    output: role.output,
    rules: loadReplyRules(board, role, sameRole(inputs.role, 'Manager'), ctx.schemas),
    ...(role.failures && { failures: role.failures }),
  };
}

/**
 * The role and the invocation an agent run would use, its command not yet checked, and why its
 * fence cannot be built if so (--dry-run shows either as a warning; a run stops at them).
 */
export function planAgent(
  ctx: Pick<AgentRun, 'env' | 'runId'>,
  board: Board,
  settings: Settings,
  inputs: AgentInputs,
  step: number,
): { role: Role; invocation: Invocation; unfenceable?: string } {
  const role = loadRole(board.dir, inputs.role, inputs.task_file ?? path.basename(board.file));
  const invocation = buildInvocation(role, inputs, {
    boardDir: board.dir,
    env: ctx.env,
    limits: {
      timeoutMs: role.timeoutMs ?? settings.timeoutMs,
      idleTimeoutMs: role.idleTimeoutMs ?? settings.idleTimeoutMs,
      killGraceMs: settings.killGraceMs,
    },
    tag: agentTag({ board: board.file, run: ctx.runId, step, role: inputs.role }, ctx.env[TAG_VARIABLE]),
  });
  if (!role.sandbox) return { role, invocation };
  // The fence is built here, once, so every retry runs in the very same one.
  const found = findBubblewrap(ctx.env, board.dir);
  const own = ownPaths(path.basename(board.file));
  const fence = buildFence(
    role.sandbox,
    fencePlace(
      board.dir,
      [...own.files, ...own.folders],
      invocation.cwd,
      ctx.env,
      'bwrap' in found ? found.bwrap : 'bwrap',
    ),
  );
  return { role, invocation: { ...invocation, fence }, ...('problem' in found && { unfenceable: found.problem }) };
}
