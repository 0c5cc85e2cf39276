import { chmodSync, chownSync } from 'node:fs';
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
import { buildFence } from '../sandbox/fence.js';
import { fencePlace } from '../sandbox/place.js';
import { ownPaths } from '../board/task-identity.js';
import { startLog } from '../log/supervisor-log.js';
import { findBubblewrap, probeFence } from '../sandbox/probe.js';
import { agentUser } from '../sandbox/owner.js';
import { callBudget, callBudgetUsd, CLI_SCHEMA_FIX, handedSchema, withCallOptions } from '../agents/call-options.js';
import { replaceFileAtomic } from '../fs/replace.js';

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
 * the run's id (in the agent's tag) and the reply schemas.
 */
export interface AgentRun {
  env: NodeJS.ProcessEnv;
  runId: string;
  schemas: SchemaCompiler;
  /**
   * What this run spent so far (the capabilities' `spent()`, passed in by loop/loop.ts; none for `try` and
   * --dry-run): read once per agent run, for its budget left (callBudgetUsd, agents/call-options.ts).
   */
  spend?: { total: { costUsd: number } };
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
  // The Log exists before any fenced agent runs, so its fence binds it read-only (no forged Log).
  const { role, invocation, unfenceable, rules, schemaFile } = planAgent(
    ctx,
    board,
    settings,
    inputs,
    step,
    () => startLog(board.dir),
    agent,
  );
  // Probed for every fenced agent run, not only at a run's start: `try` has none, and a bwrap
  // that cannot build the fence is a setup problem to name, not invalid output to retry.
  const fence = invocation.fence;
  const problem = unfenceable ?? (fence && probeFence(fence.program, fence.network, fence.user));
  if (problem !== undefined) throw new InputError(`${role.file}: ${problem}`);
  checkCommand(invocation);
  // Once per agent run, before its first attempt: every retry reads the very same file.
  if (schemaFile) {
    replaceFileAtomic(board.dir, schemaFile.file, schemaFile.text, { mode: 0o644 });
    if (fence?.user) letAgentRead(board.dir, path.posix.dirname(schemaFile.file), fence.user.gid);
  }
  return {
    invocation,
    output: role.output,
    rules: rules ?? loadReplyRules(board, role, sameRole(inputs.role, 'Manager'), ctx.schemas, ctx.env),
    ...(role.failures && { failures: role.failures }),
  };
}

/** An agent run as planned: its role and invocation, and what it hands its CLI (call-options.ts). */
export interface PlannedAgent {
  role: Role;
  invocation: Invocation;
  /** Why its fence cannot be built (--dry-run shows it as a warning; a run stops at it). */
  unfenceable?: string;
  /** The reply checks, when handing the schema needed them already. */
  rules?: ReplyRules;
  /** The schema file to write before the first attempt (board-relative) and its text. */
  schemaFile?: { file: string; text: string };
  /** Where the options handed to the CLI went into the argv (so the role's own elements are found). */
  added?: { at: number; count: number };
}

/**
 * The role (or `agent`, a fallback of it) and the invocation an agent run would use, its command
 * not yet checked, with the options handed to its CLI (the reply schema with `cli_schema: true`,
 * the run's budget left) and why its fence cannot be built if so. Writes nothing itself (--dry-run shows the same);
 * `beforeFence` runs just before a fenced role's fence is built.
 */
export function planAgent(
  ctx: Pick<AgentRun, 'env' | 'runId' | 'schemas' | 'spend'>,
  board: Board,
  settings: Settings,
  inputs: AgentInputs,
  step: number,
  beforeFence = (): void => {},
  agent?: string,
): PlannedAgent {
  const wantedBy = inputs.task_file ?? path.basename(board.file);
  // A fallback's role file runs the role's step: its command, body and settings, the role's name and inputs.
  const role = agent
    ? { ...loadRole(board.dir, agent, `${roleFilePath(inputs.role)} (fallback:)`), name: inputs.role }
    : loadRole(board.dir, inputs.role, wantedBy);
  const manager = sameRole(inputs.role, 'Manager');
  const rules = role.cliSchema ? loadReplyRules(board, role, manager, ctx.schemas, ctx.env) : undefined;
  const schema = rules && handedSchema(role.command, manager, rules.extra?.schema);
  if (typeof schema === 'string') throw new InputError(`${role.file}: cli_schema: ${schema}. ${CLI_SCHEMA_FIX}`);
  const own = ownPaths(path.basename(board.file));
  const built = buildInvocation(role, inputs, {
    boardDir: board.dir,
    own: [...own.files, ...own.folders],
    env: ctx.env,
    limits: {
      timeoutMs: role.timeoutMs ?? settings.timeoutMs,
      idleTimeoutMs: role.idleTimeoutMs ?? settings.idleTimeoutMs,
      killGraceMs: settings.killGraceMs,
    },
    tag: agentTag({ board: board.file, run: ctx.runId, step, role: inputs.role }, ctx.env[TAG_VARIABLE]),
  });
  const handed = withCallOptions(built.args, role.command, {
    ...(schema && { schema, ...(schema.file && { schemaPath: path.join(board.dir, schema.file) }) }),
    budgetUsd: callBudget(callBudgetUsd(ctx, settings, manager)),
  });
  const invocation = { ...built, args: handed.args, ...(agent && { agent }) };
  const planned: PlannedAgent = {
    role,
    invocation,
    ...(rules && { rules: schema?.strictFrom ? { ...rules, strictFrom: schema.strictFrom } : rules }),
    ...(schema?.file && { schemaFile: { file: schema.file, text: schema.text } }),
    ...(handed.added && { added: handed.added }),
  };
  if (!role.sandbox) return planned;
  // The fence is built here, once, so every retry runs in the very same one.
  const found = findBubblewrap(ctx.env, board.dir);
  const who = agentUser(board.dir);
  beforeFence();
  const fence = buildFence(
    role.sandbox,
    fencePlace(
      board.dir,
      [...own.files, ...own.folders],
      invocation.cwd,
      invocation.env,
      'bwrap' in found ? found.bwrap : 'bwrap',
      invocation.file,
      // Only words the role file gives as they are: a placeholder's value may come from a task an agent wrote.
      role.command.slice(1).filter((word) => !word.includes('{{')),
      who.user,
    ),
  );
  const unfenceable = 'problem' in found ? found.problem : who.problem;
  return { ...planned, invocation: { ...invocation, fence }, ...(unfenceable && { unfenceable }) };
}

/**
 * Run by root, a fenced agent is the board folder's owner on the host (sandbox/owner.ts), and the
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
