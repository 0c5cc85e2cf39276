import path from 'node:path';
import { isFinished, readBoard, type WrittenText } from '../board/read.js';
import { throwIfStopped, type RunContext } from './context.js';
import { HaltedForHumanError, GuardError, outcomeKind, RetriesExhaustedError, SupervisorError } from '../errors.js';
import { resolveSettings, type Settings } from '../board/settings.js';
import type { Board } from '../board/read.js';
import { appendEntry } from '../log/supervisor-log.js';
import { formatSpend } from '../spend.js';
import { runPeriodicStep, runStep } from './step.js';
import { RunTally } from './tally.js';

/** How the loop ended when it ended normally. */
export interface LoopResult {
  steps: number;
  reason: 'done' | 'once';
}

/**
 * The loop of SPEC §2: read the board, stop when there is nothing left, run a step (the
 * current task's role, then the Manager, whose answer is written back), and again. After every
 * N-th completed step a periodic role runs too (SPEC §5b). `tally` carries step numbers and the
 * periodic count over the passes of a resident run; the guards count from each pass's start.
 * `seen` is the board as the run's start read it: the first step reuses its parse.
 */
export async function superviseBoard(ctx: RunContext, tally = new RunTally(), seen?: WrittenText): Promise<LoopResult> {
  let steps = 0; // task steps, for max_steps
  let periodic = 0;
  let sameTask = 0;
  let written = seen; // the text the run last read or wrote, so the next read need not parse it again
  try {
    for (;;) {
      throwIfStopped(ctx.stop);
      const board = readBoard(ctx.file, written); // the source of truth, re-read every step
      if (isFinished(board)) {
        ctx.events.emit('done', { steps: steps + periodic, phase: board.phase ?? null, current: board.current });
        return { steps: steps + periodic, reason: 'done' };
      }
      const settings = resolveSettings(board.settings, ctx.flags);
      checkBudget(ctx, board, settings);
      if (steps >= settings.maxSteps)
        throw guardStop(
          ctx,
          board,
          `Stopped after max_steps (${settings.maxSteps}) steps with ${board.current} still current. If the Manager is going round in circles, fix it; else raise supervisor.max_steps or pass --max-steps.`,
        );
      steps++;
      const task = board.current as string; // not finished: current is a task
      const result = await runStep(ctx, board, settings, tally.nextStep());
      const { reply, answer, next } = result;
      written = result.written;
      if (answer.status !== 'ok') throw managerHalt(ctx, board, task, answer, `after ${task}`);
      sameTask = next === board.current && reply.status === 'ok' ? sameTask + 1 : 0;
      if (sameTask >= settings.maxSameTask)
        throw guardStop(
          ctx,
          board,
          `The Manager picked ${board.current} again ${sameTask} times in a row after ok replies; stopped as a loop guard. Check the Manager's role file, or raise supervisor.max_same_task.`,
        );
      for (const due of tally.stepCompleted(task, settings.periodic)) {
        periodic++;
        written = await runPeriodic(ctx, tally, due.role, written);
      }
      if (ctx.flags.once) return { steps: steps + periodic, reason: 'once' };
    }
  } catch (error) {
    recordStop(ctx, error, steps + periodic);
    throw error;
  }
}

// A periodic role's step, on the board as the step before it left it; its Manager's answer is applied like any other.
async function runPeriodic(
  ctx: RunContext,
  tally: RunTally,
  role: string,
  written: WrittenText | undefined,
): Promise<WrittenText | undefined> {
  throwIfStopped(ctx.stop);
  const board = readBoard(ctx.file, written);
  const settings = resolveSettings(board.settings, ctx.flags);
  checkBudget(ctx, board, settings);
  const { answer, written: wrote } = await runPeriodicStep(
    ctx,
    board,
    settings,
    tally.nextStep(),
    role,
    tally.takeDone(role),
  );
  if (answer.status !== 'ok')
    throw managerHalt(ctx, board, path.basename(board.file), answer, `after ${role}'s periodic run`);
  return wrote;
}

// Between steps, never during one (SPEC §4b): the step before has finished and its paid replies reached the Manager.
function checkBudget(ctx: RunContext, board: Board, settings: Settings): void {
  const budget = ctx.spend.reached(settings);
  if (!budget) return;
  throw guardStop(
    ctx,
    board,
    `Stopped: this run's agents have spent ${formatSpend(ctx.spend.total)}, reaching ${budget}, the cap on this run's spend (earlier runs of the board are not counted: \`report --all\` totals them all). ` +
      `Every reply paid for reached the Manager and its answer is written; ${String(board.current)} is current. Raise the budget (or pass --max-cost) and run again to carry on.`,
  );
}

// A guard or the budget stops the run (exit 5): one Halt entry in the Supervisor Log, like every halt.
function guardStop(ctx: RunContext, board: Board, message: string): GuardError {
  appendEntry(
    ctx.dir,
    {
      time: ctx.clock.now(),
      kind: 'Halt',
      agent: 'kanban-supervisor',
      task: String(board.current),
      issue: message,
      action: 'Stopping (exit 5); the board is as the last step left it',
    },
    ctx.events.secrets,
  );
  return new GuardError(message);
}

// The Manager's status is not ok: its answer is written, and a person is asked for (exit 4).
function managerHalt(
  ctx: RunContext,
  board: Board,
  task: string,
  answer: Record<string, unknown>,
  after: string,
): HaltedForHumanError {
  const said = `The Manager halted for a person (status ${String(answer.status)}) ${after}: ${String(answer.message)}`;
  appendEntry(
    ctx.dir,
    {
      time: ctx.clock.now(),
      kind: 'Halt',
      agent: 'Manager',
      task,
      issue: said,
      action: `Halting for a person (exit 4); the Manager's answer is written to ${path.basename(board.file)}`,
    },
    ctx.events.secrets,
  );
  return new HaltedForHumanError(said);
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
