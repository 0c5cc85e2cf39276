import path from 'node:path';
import type { AgentInputs } from './agent/invocation.js';
import type { Board } from './board/read.js';
import { readTaskMeta } from './board/task.js';
import { managerChange, writeManagerAnswer } from './board/write.js';
import type { RunContext } from './context.js';
import { appendEntry } from './log/supervisor-log.js';
import { runAgent } from './retry/run-agent.js';
import { determineRole } from './role/determine.js';
import type { Settings } from './settings.js';

/** What a step ended with: the worker's reply and the Manager's answer, already written to the board. */
export interface StepResult {
  reply: Record<string, unknown>;
  answer: Record<string, unknown>;
  /** The task the answer makes current (its path in normal form). */
  next: string | null;
}

/** The role and inputs of a task's worker (SPEC §2); shared with --dry-run so both run the same thing. */
export function workerInputs(board: Board, task: string): AgentInputs {
  return { role: determineRole(board, readTaskMeta(board.dir, task)), kanban_file: path.basename(board.file), task_file: task };
}

/** The Manager's inputs after a worker's reply (SPEC §2). */
export function managerInputs(board: Board, task: string, reply: Record<string, unknown>): AgentInputs {
  return { role: 'Manager', kanban_file: path.basename(board.file), done_task: task, tasks: board.tasks, result: reply };
}

/**
 * One step of the loop: run the current task's role, hand its reply untouched to the Manager,
 * and write the Manager's answer to kanban.yaml — unless a person edited those fields meanwhile.
 */
export async function runStep(ctx: RunContext, board: Board, settings: Settings, step: number): Promise<StepResult> {
  const task = board.current as string;
  const inputs = workerInputs(board, task);
  ctx.events.emit('step_started', { step, role: inputs.role, task, phase: board.phase ?? null });
  const reply = await runAgent(ctx, board, settings, { step, inputs, task });
  const answer = await runAgent(ctx, board, settings, { step, inputs: managerInputs(board, task, reply), task });
  const change = managerChange(answer);
  const written = writeManagerAnswer(board, change);
  if (written.keptHumanEdit) {
    const issue = `${path.basename(board.file)} was changed during the step (${written.fields.join(', ')}); the person's version is kept and the Manager's answer (next_task ${JSON.stringify(answer.next_task)}) is not written`;
    appendEntry(board.dir, { time: ctx.clock.now(), kind: 'Warning', agent: 'Manager', task, issue, action: 'Continuing from the board as it is on disk' });
    ctx.events.emit('human_edit_kept', { step, task, fields: written.fields, issue });
  } else {
    ctx.events.emit('board_written', { step, task, written: written.written, current: change.current, tasks: change.tasks?.length, status: answer.status, message: answer.message });
  }
  return { reply, answer, next: change.current ?? null };
}
