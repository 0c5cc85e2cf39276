import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { readBoard, type Board } from './board/board.js';
import { HaltedForHumanError, MaxStepsError, RetriesExhaustedError, SupervisorError } from './errors.js';
import type { RetryDeps } from './retry.js';
import { resolveSettings, type SettingsFlags } from './settings.js';
import type * as StepModule from './step.js';

// What a step runs (roles, agents, retries, output checks, the board write) is loaded at the
// first step: a run on a finished board needs none of it.
let stepModule: typeof StepModule | undefined;

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
      const step = (stepModule ??= await import('./step.js'));
      const inputs = step.workerInputs(board, task);
      const role = inputs.role;
      deps.events.emit('step_started', { step: steps, role, task, phase: board.phase ?? null });

      const reply = await step.runAgent(board, settings, steps, task, inputs, deps);
      throwIfInterrupted(deps);
      const answer = await step.runAgent(board, settings, steps, `${path.basename(file)} (done_task: ${task})`, { role: 'Manager', kanban_file: path.basename(file), done_task: task, tasks: board.tasks, result: reply }, deps);

      const applied = step.applyManagerAnswer(board, step.managerChange(answer));
      if (applied.keptHumanEdit) {
        const issue = `kanban.yaml was changed during the step (${applied.fields.join(', ')}); the person's version is kept and the Manager's answer (next_task ${JSON.stringify(answer.next_task)}) is not written`;
        step.appendEntry(board.dir, { time: deps.clock(), kind: 'Warning', agent: 'Manager', task, issue, action: 'Continuing from the board as it is on disk' });
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
