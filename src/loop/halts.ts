import path from 'node:path';
import type { Board } from '../board/read.js';
import { GuardError, HaltedForHumanError, outcomeKind, RetriesExhaustedError, SupervisorError } from '../errors.js';
import { appendEntry } from '../log/supervisor-log.js';
import type { RunContext } from './context.js';

/** A guard or a capability (the budget) stops the run (exit 5): one Halt entry in the Supervisor Log, like every halt. */
export function guardStop(ctx: RunContext, board: Board, message: string): GuardError {
  appendEntry(ctx.board.dir, {
    time: ctx.world.clock.now(),
    kind: 'Halt',
    agent: 'kanban-supervisor',
    task: String(board.current),
    issue: message,
    action: 'Stopping (exit 5); the board is as the last step left it',
  });
  return new GuardError(message);
}

/** The Manager's status is not ok: its answer is written, and a person is asked for (exit 4). */
export function managerHalt(
  ctx: RunContext,
  board: Board,
  task: string,
  answer: Record<string, unknown>,
  after: string,
): HaltedForHumanError {
  const said = `The Manager halted for a person (status ${String(answer.status)}) ${after}: ${String(answer.message)}`;
  appendEntry(ctx.board.dir, {
    time: ctx.world.clock.now(),
    kind: 'Halt',
    agent: 'Manager',
    task,
    issue: said,
    action: `Halting for a person (exit 4); the Manager's answer is written to ${path.basename(board.file)}`,
  });
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
