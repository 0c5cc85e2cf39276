import path from 'node:path';
import type { AgentInputs } from '../board/inputs.js';
import { BoardReadError } from '../board/board-file.js';
import type { Board, WrittenText } from '../board/read.js';
import { readTaskMeta } from '../board/task.js';
import { managerChange, writeManagerAnswer } from '../board/write.js';
import type { RunContext } from './context.js';
import { InputError } from '../errors.js';
import { appendEntry } from '../log/supervisor-log.js';
import { runAgent } from './run-agent.js';
import { determineRole } from '../board/determine-role.js';
import type { Settings } from '../board/settings.js';
import type { TreeNote } from '../git/step-commits.js';

/** What a step ended with: the worker's reply and the Manager's answer, already written to the board. */
export interface StepResult {
  reply: Record<string, unknown>;
  answer: Record<string, unknown>;
  /** The task the answer makes current (its path in normal form). */
  next: string | null;
  /** The board text written, with its parse, for the next read to use again. */
  written?: WrittenText;
}

/** The role and inputs of a task's worker (SPEC §2); shared with --dry-run so both run the same thing. */
export function workerInputs(board: Board, task: string): AgentInputs {
  return {
    role: determineRole(board, readTaskMeta(board.dir, task)),
    kanban_file: path.basename(board.file),
    task_file: task,
  };
}

/** A periodic role's inputs (SPEC §5b): the board, its task list and the tasks completed since the role last ran. */
export function periodicInputs(board: Board, role: string, doneTasks: string[]): AgentInputs {
  return { role, kanban_file: path.basename(board.file), tasks: board.tasks, done_tasks: doneTasks };
}

/**
 * The Manager's inputs after a worker's reply (SPEC §2), or after a periodic role's (`task`
 * null, `trigger` its name); `history` is the board's recent steps when the run keeps them.
 */
export function managerInputs(
  board: Board,
  task: string | null,
  reply: Record<string, unknown>,
  more: { trigger?: string; history?: unknown[] } = {},
): AgentInputs {
  return {
    role: 'Manager',
    kanban_file: path.basename(board.file),
    done_task: task,
    tasks: board.tasks,
    result: reply,
    ...(more.trigger !== undefined && { trigger: more.trigger }),
    ...(more.history && { history: more.history }),
  };
}

/**
 * One step of the loop: run the current task's role, hand its reply untouched to the Manager,
 * and write the Manager's answer to kanban.yaml — unless a person edited those fields meanwhile.
 * With `on_exhausted: manager`, a worker out of retries is reported to the Manager as an error.
 */
export async function runStep(ctx: RunContext, board: Board, settings: Settings, step: number): Promise<StepResult> {
  const task = board.current as string;
  const inputs = workerInputs(board, task);
  ctx.events.emit('step_started', { step, role: inputs.role, task, phase: board.phase ?? null });
  const note = settings.gitCommit ? await ctx.git?.note(step) : undefined;
  const reply = await runAgent(ctx, board, settings, {
    step,
    inputs,
    task,
    handOver: settings.onExhausted === 'manager',
  });
  return askManager(ctx, board, settings, { step, task, doneTask: task, role: inputs.role, reply, note });
}

/**
 * A periodic role's step (supervisor.periodic): run the role on the board, then hand its reply
 * untouched to the Manager with `done_task: null` and `trigger: <role>`, and write the answer.
 */
export async function runPeriodicStep(
  ctx: RunContext,
  board: Board,
  settings: Settings,
  step: number,
  role: string,
  doneTasks: string[],
): Promise<StepResult> {
  const name = path.basename(board.file);
  ctx.events.emit('step_started', {
    step,
    role,
    task: name,
    trigger: role,
    done_tasks: doneTasks.length,
    phase: board.phase ?? null,
  });
  const note = settings.gitCommit ? await ctx.git?.note(step) : undefined;
  const reply = await runAgent(ctx, board, settings, {
    step,
    inputs: periodicInputs(board, role, doneTasks),
    task: name,
    trigger: role,
    handOver: settings.onExhausted === 'manager',
  });
  return askManager(ctx, board, settings, { step, task: name, doneTask: null, trigger: role, role, reply, note });
}

/** What the Manager hears about: the step's task (kanban.yaml for a periodic role), the done task or null, the role and its reply; the work tree as the step started, when steps are committed. */
interface Heard {
  step: number;
  task: string;
  doneTask: string | null;
  trigger?: string;
  role: string;
  reply: Record<string, unknown>;
  note: TreeNote | undefined;
}

// The Manager's inputs are built once here, so every retry of it gets the same history.
async function askManager(ctx: RunContext, board: Board, settings: Settings, heard: Heard): Promise<StepResult> {
  const { step, task, trigger, reply } = heard;
  const inputs = managerInputs(board, heard.doneTask, reply, {
    ...(trigger !== undefined && { trigger }),
    ...(ctx.history && { history: ctx.history.recent() }),
  });
  const answer = await runAgent(ctx, board, settings, {
    step,
    inputs,
    task,
    ...(trigger !== undefined && { trigger }),
  });
  const change = managerChange(answer);
  const written = writeAnswer(ctx, board, heard, answer, change);
  if (written.keptHumanEdit) {
    const issue = `${path.basename(board.file)} was changed during the step (${written.fields.join(', ')}); the person's version is kept and the Manager's answer (next_task ${JSON.stringify(answer.next_task)}) is not written`;
    appendEntry(
      board.dir,
      {
        time: ctx.clock.now(),
        kind: 'Warning',
        agent: 'Manager',
        task,
        issue,
        action: 'Continuing from the board as it is on disk',
      },
      ctx.events.secrets,
    );
    ctx.events.emit('human_edit_kept', { step, task, fields: written.fields, issue });
  } else {
    ctx.events.emit('board_written', {
      step,
      task,
      written: written.written,
      current: change.current,
      tasks: change.tasks?.length,
      status: answer.status,
      message: answer.message,
      ...(trigger !== undefined && { trigger }),
    });
    // The answer is applied: the step's work and the board become one commit (a failure stops the run, exit 6).
    if (heard.note)
      await ctx.git?.commit(heard.note, {
        step,
        runId: ctx.runId,
        task,
        role: heard.role,
        reply,
        answer,
        next: change.current ?? null,
      });
  }
  return {
    reply,
    answer,
    next: change.current ?? null,
    ...(written.written && written.board && { written: written.board }),
  };
}

// The board moved away or deleted during the step: an orderly stop (exit 2, as for a board
// missing at the start), one Halt entry, the answer in the message so it is not lost unread.
function writeAnswer(
  ctx: RunContext,
  board: Board,
  heard: Heard,
  answer: Record<string, unknown>,
  change: ReturnType<typeof managerChange>,
): ReturnType<typeof writeManagerAnswer> {
  try {
    return writeManagerAnswer(board, change);
  } catch (error) {
    if (!(error instanceof BoardReadError)) throw error;
    const name = path.basename(board.file);
    const why =
      error.code === 'ENOENT'
        ? 'is gone: it was moved or deleted during the step'
        : error.message.replace(`${board.file}: `, '');
    const issue = `${name} ${why}, so the Manager's answer (status ${String(answer.status)}, next_task ${JSON.stringify(answer.next_task)}) cannot be written; nothing was written in its place`;
    appendEntry(
      board.dir,
      {
        time: ctx.clock.now(),
        kind: 'Halt',
        agent: 'kanban-supervisor',
        task: heard.task,
        issue,
        action: 'Stopping (exit 2); the agents have ended',
      },
      ctx.events.secrets,
    );
    throw new InputError(
      `${board.file}: ${issue}. Put it back (e.g. \`git checkout ${name}\`, or move it back) and run again: the run carries on from the board as it is then.`,
    );
  }
}
