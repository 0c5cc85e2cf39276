import path from 'node:path';
import { BoardReadError } from '../board/board-file.js';
import { determineRole } from '../board/determine-role.js';
import type { AgentInputs } from '../board/inputs.js';
import type { Board } from '../board/read-board.js';
import { boardParked, type ParkedTask } from '../board/parked.js';
import type { Document } from 'yaml';
import type { Settings } from '../board/settings.js';
import { readTaskMeta } from '../board/task.js';
import { managerChange, writeManagerAnswer, type WriteOutcome } from '../board/write-answer.js';
import { InputError } from '../errors.js';
import type { RunContext } from './context.js';
import { runAgent } from './retry.js';

/** What a step runs: the current task's worker, or a role a capability asked for (`trigger`, on kanban.yaml). */
export interface StepJob {
  number: number;
  inputs: AgentInputs;
  task: string;
  trigger?: string;
}

/** The role and inputs of a task's worker (SPEC §2); shared with --dry-run so both run the same thing. */
export function workerInputs(board: Board, task: string): AgentInputs {
  const role = determineRole(board, readTaskMeta(board.dir, task));
  return { role, kanban_file: path.basename(board.file), task_file: task };
}

/** The Manager's inputs after a reply (SPEC §2); `task` null and `more.trigger` after a periodic role's. */
export function managerInputs(
  board: Board,
  task: string | null,
  reply: Record<string, unknown>,
  more: Partial<AgentInputs> = {},
): AgentInputs {
  return {
    role: 'Manager',
    kanban_file: path.basename(board.file),
    done_task: task,
    tasks: board.tasks,
    result: reply,
    ...more,
  };
}

/**
 * One step of SPEC §2: run the role, hand its reply untouched to the Manager, and write the
 * Manager's answer to kanban.yaml — unless a person edited those fields meanwhile. With
 * `on_exhausted: manager`, a worker out of retries is reported to the Manager as an error.
 */
export async function runStep(ctx: RunContext, board: Board, settings: Settings, job: StepJob) {
  const { number: step, inputs, task, trigger } = job;
  const triggered = trigger !== undefined && { trigger, done_tasks: inputs.done_tasks?.length ?? 0 };
  ctx.events.emit('step_started', { step, role: inputs.role, task, ...triggered, phase: board.phase ?? null });
  await ctx.capabilities.stepStarted(step, settings);
  const handOver = settings.onExhausted === 'manager';
  const reply = await runAgent(ctx, board, settings, { step, inputs, task, trigger, handOver });
  // Built once, so every retry of the Manager gets the very same inputs.
  const more = { ...(trigger !== undefined && { trigger }), ...ctx.capabilities.managerInputs() };
  const heard = managerInputs(board, trigger === undefined ? task : null, reply, more);
  const answer = await runAgent(ctx, board, settings, { step, inputs: heard, task, trigger });
  const change = managerChange(answer);
  const next = change.current ?? null;
  const written = writeAnswer(ctx, board, task, answer, change);
  if (written.keptHumanEdit) {
    const name = path.basename(board.file);
    const kept = `${name} was changed during the step (${written.fields.join(', ')}); the person's version is kept`;
    const issue = written.written
      ? `${kept}, and the rest of the Manager's answer (next_task ${JSON.stringify(answer.next_task)}) is written`
      : `${kept} and the Manager's answer (next_task ${JSON.stringify(answer.next_task)}) is not written` +
        (trigger !== undefined || written.fields.some((field) => !/^(tasks|phase|sub_phase)$/.test(field))
          ? ''
          : `; current is still ${task}, which has just run, so the next step runs it again ` +
            `unless you set current: in ${name}`);
    ctx.world.log({
      kind: 'Warning',
      agent: 'Manager',
      task,
      issue,
      action: 'Continuing from the board as it is on disk',
    });
    ctx.events.emit('human_edit_kept', { step, task, fields: written.fields, issue });
    if (!written.written) return { reply, answer, next };
  }
  ctx.board.wrote(written.written ? written.board : undefined);
  const after = written.written && written.board?.parsed.ok ? written.board.parsed.doc : undefined;
  const setAside = after ? newlyParked(board, after) : [];
  ctx.events.emit('board_written', {
    step,
    task,
    written: written.written,
    current: change.current,
    tasks: change.tasks?.length,
    status: String(answer.status),
    message: String(answer.message),
    ...(trigger !== undefined && { trigger }),
    ...(setAside.length > 0 && { set_aside: setAside }),
  });
  await ctx.capabilities.answerWritten({ step, task, role: inputs.role, reply, answer, next });
  return { reply, answer, next };
}

// The tasks the Manager set aside during the step (kanban.yaml `parked:`, which it writes itself), with
// their questions: shown, never acted on.
function newlyParked(before: Board, after: Document): ParkedTask[] {
  const had = new Set(boardParked(before.doc).map((entry) => entry.task));
  return boardParked(after).filter((entry) => !had.has(entry.task));
}

// The board moved away or deleted during the step: an orderly stop (exit 2, as for a board
// missing at the start), one Halt entry, the answer in the message so it is not lost unread.
function writeAnswer(
  ctx: RunContext,
  board: Board,
  task: string,
  answer: Record<string, unknown>,
  change: ReturnType<typeof managerChange>,
): WriteOutcome {
  try {
    return writeManagerAnswer(board, change);
  } catch (error) {
    if (!(error instanceof BoardReadError)) throw error;
    const name = path.basename(board.file);
    const why =
      error.code === 'ENOENT'
        ? 'is gone: it was moved or deleted during the step'
        : error.message.replace(`${board.file}: `, '');
    const issue =
      `${name} ${why}, so the Manager's answer ` +
      `(status ${String(answer.status)}, next_task ${JSON.stringify(answer.next_task)}) cannot be written; ` +
      `nothing was written in its place`;
    ctx.world.log({
      kind: 'Halt',
      agent: 'kanban-supervisor',
      task,
      issue,
      action: 'Stopping (exit 2); the agents have ended',
    });
    throw new InputError(
      `${board.file}: ${issue}. Put it back (e.g. \`git checkout ${name}\`, or move it back) and run again: ` +
        `the run carries on from the board as it is then.`,
    );
  }
}
