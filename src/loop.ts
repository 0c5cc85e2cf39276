import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { checkCommand } from './agent/command.js';
import { buildInvocation, type AgentInputs } from './agent/invocation.js';
import { applyManagerAnswer, managerChange } from './board/apply.js';
import { readBoard, type Board } from './board/board.js';
import { HaltedForHumanError, MaxStepsError, RetriesExhaustedError, SupervisorError } from './errors.js';
import { appendEntry } from './log/supervisor-log.js';
import { loadReplyRules } from './output/rules.js';
import { determineRole } from './role/determine.js';
import { loadRole } from './role/role.js';
import { runWithRetries, type AgentRun, type RetryDeps } from './retry.js';
import { resolveSettings, type Settings, type SettingsFlags } from './settings.js';
import { readTaskMeta } from './task.js';

/** What the loop needs from outside: the attempt runner, the event log, interrupts, the clock. */
export type LoopDeps = Omit<RetryDeps, 'killGraceMs' | 'boardDir'> & { env: NodeJS.ProcessEnv };

/** How the loop ended when it ended normally. */
export interface LoopResult {
  steps: number;
  reason: 'done' | 'once';
}

/**
 * The loop of SPEC §2: read the board, run the current task's role, hand its reply to
 * the Manager, write the Manager's answer back, repeat until there is no next task.
 */
export async function superviseBoard(file: string, flags: SettingsFlags & { once?: boolean }, deps: LoopDeps): Promise<LoopResult> {
  mkdirSync(deps.runDir, { recursive: true });
  let steps = 0;
  let sameTask = 0;
  let written: Board | undefined;
  try {
    for (;;) {
      throwIfInterrupted(deps);
      const board = readBoard(file, written);
      if (board.current === null || board.phase === 'complete') {
        deps.events.emit('done', { steps, phase: board.phase ?? null });
        return { steps, reason: 'done' };
      }
      const settings = resolveSettings(board.settings, flags);
      if (steps >= settings.maxSteps) throw new MaxStepsError(`Stopped after max_steps (${settings.maxSteps}) steps with ${board.current} still current. If the Manager is going round in circles, fix it; else raise supervisor.max_steps or pass --max-steps.`);
      steps++;
      const task = board.current;
      const inputs = workerInputs(board, task);
      const role = inputs.role;
      deps.events.emit('step_started', { step: steps, role, task, phase: board.phase ?? null });

      const reply = await runAgent(board, settings, steps, task, inputs, deps);
      throwIfInterrupted(deps);
      const answer = await runAgent(board, settings, steps, `${path.basename(file)} (done_task: ${task})`, { role: 'Manager', kanban_file: path.basename(file), done_task: task, tasks: board.tasks, result: reply }, deps);

      const applied = applyManagerAnswer(board, managerChange(answer));
      if (applied.keptHumanEdit) {
        const issue = `kanban.yaml was changed during the step (${applied.fields.join(', ')}); the person's version is kept and the Manager's answer (next_task ${JSON.stringify(answer.next_task)}) is not written`;
        appendEntry(board.dir, { time: deps.clock(), kind: 'Warning', agent: 'Manager', task, issue, action: 'Continuing from the board as it is on disk' });
        deps.events.emit('human_edit_kept', { step: steps, task, fields: applied.fields, issue });
      } else {
        written = applied.board;
        deps.events.emit('board_written', { step: steps, task, written: applied.written, current: answer.next_task, tasks: (answer.tasks as string[]).length });
      }
      if (answer.status !== 'ok') {
        throw new HaltedForHumanError(`The Manager halted for a person (status ${String(answer.status)}) after ${task}: ${String(answer.message)}`);
      }
      sameTask = answer.next_task === task && reply.status === 'ok' ? sameTask + 1 : 0;
      if (sameTask >= settings.maxSameTask) {
        throw new MaxStepsError(`The Manager picked ${task} again ${sameTask} times in a row after ok replies; stopped as a loop guard. Check the Manager's role file, or raise supervisor.max_same_task.`);
      }
      if (flags.once) return { steps, reason: 'once' };
    }
  } catch (error) {
    recordStop(error, steps, deps);
    throw error;
  }
}

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

async function runAgent(board: Board, settings: Settings, step: number, task: string, inputs: AgentInputs, deps: LoopDeps): Promise<Record<string, unknown>> {
  const run = { ...prepareAgent(board, settings, inputs, deps.env), step, task, maxRetries: settings.maxRetries };
  return runWithRetries(run, { ...deps, boardDir: board.dir, killGraceMs: settings.killGraceMs });
}

function throwIfInterrupted(deps: LoopDeps): void {
  if (deps.interrupt?.aborted) throw deps.interrupt.reason as Error;
}

// Retries record their own halt; every other way the loop stops is recorded here.
function recordStop(error: unknown, steps: number, deps: LoopDeps): void {
  if (error instanceof RetriesExhaustedError) return;
  const exitCode = error instanceof SupervisorError ? error.exitCode : 1;
  const message = error instanceof Error ? error.message : String(error);
  deps.events.emit(exitCode >= 128 ? 'interrupted' : 'halted', { steps, exitCode, reason: error instanceof Error ? error.name : 'Error', message });
}
