import path from 'node:path';
import { isFinished, type Board } from '../board/read-board.js';
import { resolveSettings, type Settings } from '../board/settings.js';
import { GuardError, HaltedForHumanError, outcomeKind, RetriesExhaustedError, SupervisorError } from '../errors.js';
import type { ExtraStep, LoopResult, RunContext } from './context.js';
import { runStep, workerInputs } from './step.js';
import { throwIfStopped } from './world.js';

/** The numbers of a run's steps: task steps and those capabilities ask for share one sequence, over every pass. */
export class StepNumbers {
  private last = 0;

  nextStep(): number {
    return ++this.last;
  }
}

/** The loop of SPEC §2, run again while a capability asks for it (--watch); ends as its last pass ended. */
export async function superviseBoard(ctx: RunContext): Promise<LoopResult> {
  const numbers = new StepNumbers();
  for (;;) {
    const end = await pass(ctx, numbers).then(
      (result) => ({ ctx, result }),
      (error: unknown) => ({ ctx, error }),
    );
    if ((await ctx.capabilities.loopEnded(end)) === 'again') continue;
    if ('error' in end) throw end.error;
    return end.result;
  }
}

/**
 * SPEC §2: read the board (every step), stop when nothing is left, run a step (the task's role,
 * then the Manager, whose answer is written), again; halt for a person when the Manager's status
 * is not ok. Guards: max_steps, and the same task picked again and again. After a step, the
 * steps capabilities ask for (periodic roles). The guards count from the pass's start.
 */
async function pass(ctx: RunContext, numbers: StepNumbers): Promise<LoopResult> {
  let steps = 0; // task steps, for max_steps
  let extra = 0;
  let sameTask = 0;
  try {
    for (;;) {
      throwIfStopped(ctx.world.stop);
      const board = ctx.board.read();
      if (isFinished(board)) {
        ctx.events.emit('done', { steps: steps + extra, phase: board.phase ?? null, current: board.current });
        return { steps: steps + extra, reason: 'done' };
      }
      const settings = stepSettings(ctx, board);
      if (steps >= settings.maxSteps)
        throw guardStop(
          ctx,
          board,
          `Stopped after max_steps (${settings.maxSteps}) steps with ${board.current} still current. ` +
            `If the Manager is going round in circles, fix it; else raise supervisor.max_steps or pass --max-steps.`,
        );
      steps++;
      const task = board.current as string; // not finished: current is a task
      const step = { number: numbers.nextStep(), inputs: workerInputs(board, task), task };
      const { reply, answer, next } = await runStep(ctx, board, settings, step);
      if (answer.status !== 'ok') throw managerHalt(ctx, board, task, answer, `after ${task}`);
      sameTask = next === board.current && reply.status === 'ok' ? sameTask + 1 : 0;
      if (sameTask >= settings.maxSameTask)
        throw guardStop(
          ctx,
          board,
          `The Manager picked ${board.current} again ${sameTask} times in a row after ok replies; ` +
            `stopped as a loop guard. Check the Manager's role file, or raise supervisor.max_same_task.`,
        );
      for (const asked of ctx.capabilities.afterStep(task, settings)) {
        extra++;
        await extraStep(ctx, asked, numbers);
      }
      if (ctx.flags.once) return { steps: steps + extra, reason: 'once' };
    }
  } catch (error) {
    recordStop(ctx, error, steps + extra);
    throw error;
  }
}

// A step a capability asked for, on the board the step before left; its Manager's answer is applied like any other.
async function extraStep(ctx: RunContext, asked: ExtraStep, numbers: StepNumbers): Promise<void> {
  throwIfStopped(ctx.world.stop);
  const board = ctx.board.read();
  const settings = stepSettings(ctx, board);
  const task = path.basename(board.file);
  const step = { number: numbers.nextStep(), inputs: asked.inputs(board), task, trigger: asked.role };
  const { answer } = await runStep(ctx, board, settings, step);
  if (answer.status !== 'ok') throw managerHalt(ctx, board, task, answer, `after ${asked.name}`);
}

// A step's settings; a capability may stop the run before it, never during one (the budget, SPEC §4b).
function stepSettings(ctx: RunContext, board: Board): Settings {
  const settings = resolveSettings(board.settings, ctx.flags);
  const stop = ctx.capabilities.beforeStep(board, settings);
  if (stop) throw guardStop(ctx, board, stop.message);
  return settings;
}

// A guard or the budget stops the run (exit 5), with a Halt entry like every halt.
function guardStop(ctx: RunContext, board: Board, issue: string): GuardError {
  const action = 'Stopping (exit 5); the board is as the last step left it';
  ctx.world.log({ kind: 'Halt', agent: 'kanban-supervisor', task: String(board.current), issue, action });
  return new GuardError(issue);
}

// The Manager's status is not ok: its answer is written, and a person is asked for (exit 4).
function managerHalt(ctx: RunContext, board: Board, task: string, answer: Record<string, unknown>, after: string) {
  const issue = `The Manager halted for a person (status ${String(answer.status)}) ${after}: ${String(answer.message)}`;
  const action = `Halting for a person (exit 4); the Manager's answer is written to ${path.basename(board.file)}`;
  ctx.world.log({ kind: 'Halt', agent: 'Manager', task, issue, action });
  return new HaltedForHumanError(issue);
}

/** Record how a run stops (an `interrupted` or `halted` event); retries record their own halt. */
export function recordStop(ctx: RunContext, error: unknown, steps: number): void {
  if (error instanceof RetriesExhaustedError) return;
  const exitCode = error instanceof SupervisorError ? error.exitCode : 1;
  const message = error instanceof Error ? error.message : String(error);
  const reason = outcomeKind(exitCode);
  // A time limit ends a run the way a signal does: the step in progress is left, not failed.
  const stopped = reason === 'interrupted' || reason === 'output_closed' || reason === 'time_limit';
  ctx.events.emit(stopped ? 'interrupted' : 'halted', { steps, exitCode, reason, message });
}
