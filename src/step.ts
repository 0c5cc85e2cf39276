import path from 'node:path';
import { checkCommand } from './agent/command.js';
import { buildInvocation, type AgentInputs } from './agent/invocation.js';
import type { Board } from './board/board.js';
import type { LoopDeps } from './loop.js';
import { loadReplyRules } from './reply/rules.js';
import { determineRole } from './role/determine.js';
import { loadRole } from './role/role.js';
import { runWithRetries, type AgentRun } from './retry.js';
import type { Settings } from './settings.js';
import { readTaskMeta } from './board/task.js';

// What else a step needs, loaded with it (loop.ts imports this module at the first step).
export { applyManagerAnswer, managerChange } from './board/apply.js';
export { appendEntry } from './log/supervisor-log.js';

/** The role and inputs of a task's worker (SPEC §2); shared with --dry-run so both run the same thing. */
export function workerInputs(board: Board, task: string): AgentInputs {
  const role = determineRole(board, readTaskMeta(board.dir, task));
  return { role, kanban_file: path.basename(board.file), task_file: task };
}

/** A role's checked invocation and reply rules: what every attempt repeats (shared with --dry-run). */
export function prepareAgent(board: Board, settings: Settings, inputs: AgentInputs, env: NodeJS.ProcessEnv): Pick<AgentRun, 'invocation' | 'output' | 'rules'> {
  const role = loadRole(board.dir, inputs.role, inputs.task_file ?? 'the loop');
  const invocation = buildInvocation(role, inputs, env, board.dir, {
    timeoutMs: role.timeoutMs ?? settings.timeoutMs,
    idleTimeoutMs: role.idleTimeoutMs ?? settings.idleTimeoutMs,
  });
  checkCommand(invocation);
  const rules = loadReplyRules(board.dir, role, inputs.role === 'Manager');
  return { invocation, output: role.output, rules };
}

/** Run a role's agent for these inputs until it replies in the right format (retries included). */
export async function runAgent(board: Board, settings: Settings, step: number, task: string, inputs: AgentInputs, deps: LoopDeps): Promise<Record<string, unknown>> {
  const run = { ...prepareAgent(board, settings, inputs, deps.env), step, task, maxRetries: settings.maxRetries };
  return runWithRetries(run, { ...deps, boardDir: board.dir, killGraceMs: settings.killGraceMs });
}
