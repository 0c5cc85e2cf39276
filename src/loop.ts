import { isFinished, readBoard } from './board/read.js';
import { throwIfStopped, type RunContext } from './context.js';
import { HaltedForHumanError, GuardError, outcomeKind, RetriesExhaustedError, SupervisorError } from './errors.js';
import { resolveSettings } from './settings.js';
import { runStep } from './step.js';

/** How the loop ended when it ended normally. */
export interface LoopResult {
  steps: number;
  reason: 'done' | 'once';
}

/**
 * The loop of SPEC §2: read the board, stop when there is nothing left, run a step (the
 * current task's role, then the Manager, whose answer is written back), and again.
 */
export async function superviseBoard(ctx: RunContext): Promise<LoopResult> {
  let steps = 0;
  let sameTask = 0;
  try {
    for (;;) {
      throwIfStopped(ctx.stop);
      const board = readBoard(ctx.file); // the source of truth, re-read every step
      if (isFinished(board)) {
        ctx.events.emit('done', { steps, phase: board.phase ?? null, current: board.current });
        return { steps, reason: 'done' };
      }
      const settings = resolveSettings(board.settings, ctx.flags);
      if (steps >= settings.maxSteps) throw new GuardError(`Stopped after max_steps (${settings.maxSteps}) steps with ${board.current} still current. If the Manager is going round in circles, fix it; else raise supervisor.max_steps or pass --max-steps.`);
      steps++;
      const { reply, answer, next } = await runStep(ctx, board, settings, steps);
      if (answer.status !== 'ok') throw new HaltedForHumanError(`The Manager halted for a person (status ${String(answer.status)}) after ${board.current}: ${String(answer.message)}`);
      sameTask = next === board.current && reply.status === 'ok' ? sameTask + 1 : 0;
      if (sameTask >= settings.maxSameTask) throw new GuardError(`The Manager picked ${board.current} again ${sameTask} times in a row after ok replies; stopped as a loop guard. Check the Manager's role file, or raise supervisor.max_same_task.`);
      if (ctx.flags.once) return { steps, reason: 'once' };
    }
  } catch (error) {
    recordStop(ctx, error, steps);
    throw error;
  }
}

// Retries record their own halt; every other way the loop stops is recorded here.
function recordStop(ctx: RunContext, error: unknown, steps: number): void {
  if (error instanceof RetriesExhaustedError) return;
  const exitCode = error instanceof SupervisorError ? error.exitCode : 1;
  const message = error instanceof Error ? error.message : String(error);
  const reason = outcomeKind(exitCode);
  ctx.events.emit(reason === 'interrupted' || reason === 'output_closed' ? 'interrupted' : 'halted', { steps, exitCode, reason, message });
}
