// The core, read against the spec: the loop of SPEC §2 (superviseBoard → pass), one step of it
// (runStep: the role, then the Manager, the answer written) and the retry rule of SPEC §4
// (runAgent). One attempt, judged by format only, is run-once.ts.
import path from 'node:path';
import type { Document } from 'yaml';
import { prepareAgent } from '../agent/prepare.js';
import { BoardReadError } from '../board/board-file.js';
import { checkBoard } from '../board/check.js';
import type { AgentInputs } from '../board/inputs.js';
import { boardParked, type ParkedTask } from '../board/parked.js';
import { isFinished, type Board } from '../board/read-board.js';
import { resolveSettings, type Settings } from '../board/settings.js';
import { managerInputs, workerInputs } from '../board/step-inputs.js';
import { managerChange, writeManagerAnswer, type WriteOutcome } from '../board/write-answer.js';
import {
  GuardError,
  HaltedForHumanError,
  InputError,
  outcomeKind,
  RetriesExhaustedError,
  SupervisorError,
} from '../errors.js';
import type { LogEntry } from '../log/supervisor-log.js';
import type { ExtraStep, LoopResult, RunContext } from './context.js';
import { runOnce, type AgentRun, type InvalidAttempt } from './run-once.js';
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
    // What --watch judges an edit by: validate's checks, and whether a capability would stop before a step.
    const judge = {
      ctx,
      check: () => checkBoard({ file: ctx.board.file, env: ctx.world.env }, ctx.lists.boardChecks()),
      stopBeforeStep: ctx.capabilities.beforeStep.bind(ctx.capabilities),
    };
    const end = await pass(ctx, numbers).then(
      (result) => ({ ...judge, result }),
      (error: unknown) => ({ ...judge, error }),
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
export function recordStop(ctx: Pick<RunContext, 'events'>, error: unknown, steps: number): void {
  if (error instanceof RetriesExhaustedError) return;
  const exitCode = error instanceof SupervisorError ? error.exitCode : 1;
  const message = error instanceof Error ? error.message : String(error);
  const reason = outcomeKind(exitCode);
  // A time limit ends a run the way a signal does: the step in progress is left, not failed.
  const stopped = reason === 'interrupted' || reason === 'output_closed' || reason === 'time_limit';
  ctx.events.emit(stopped ? 'interrupted' : 'halted', { steps, exitCode, reason, message });
}

/** What a step runs: the current task's worker, or a role a capability asked for (`trigger`, on kanban.yaml). */
export interface StepJob {
  number: number;
  inputs: AgentInputs;
  task: string;
  trigger?: string;
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

/**
 * SPEC §4, the critical rule: run the agent; while its output is invalid, run the very same
 * invocation again (same argv, stdin bytes, environment and folder), at most `max_retries`
 * times, logging each retry. After the last one, halt (exit 3) with the board untouched — or,
 * with `handOver`, return the error result the Manager is to get. A failure a capability claims
 * (a usage limit, a service error, a missing login: SPEC §4b) is theirs to wait out or stop on;
 * its re-run is the same attempt again and spends no retry. Lifecycle: src/agent/README.md.
 */
export async function runAgent(
  ctx: RunContext,
  board: Board,
  settings: Settings,
  run: AgentRun,
): Promise<Record<string, unknown>> {
  const spent = ctx.capabilities.spent();
  const prepare = (chosen: string | undefined) =>
    prepareAgent(
      {
        env: ctx.world.env,
        runId: ctx.runId,
        schemas: ctx.schemas,
        transforms: ctx.lists.transforms,
        ...(spent && { spend: { total: spent } }),
      },
      board,
      settings,
      run.inputs,
      run.step,
      chosen,
    );
  // The role's own agent, or a fallback of it while the role's account is limited (SPEC §5c).
  const choice = { ctx, step: run.step, role: run.inputs.role, task: run.task, settings };
  let chosen = await ctx.capabilities.chooseAgent(choice);
  let agent = prepare(chosen);
  const total = settings.maxRetries + 1;
  // Attempt N of `total` everywhere; a re-run of it after a usage limit or a service error keeps N.
  for (let attempt = 1, rerun = 0; ;) {
    const ended = await runOnce(ctx, agent, { ...run, settings, attempt, of: total, rerun });
    if (ended.valid) return ended.reply;
    const place = { ctx, step: run.step, role: agent.invocation.role, task: run.task, logTask: logTaskOf(run) };
    const failed = {
      ...place,
      settings,
      invocation: agent.invocation,
      failure: ended.failure,
      issue: ended.judgement.issue,
    };
    if ((await ctx.capabilities.afterFailure(failed)) === 'again') {
      rerun++;
      // Only a re-run may change the agent (a usage limit); a format retry below never does (SPEC §4).
      const next = await ctx.capabilities.chooseAgent(choice);
      if (next !== chosen) agent = prepare((chosen = next));
      continue;
    }
    if (attempt === total) return exhausted(ctx, run, settings, ended);
    logFailure(ctx, run, ended, {
      kind: 'Retry Event',
      attempt:
        `${attempt}/${settings.maxRetries} ` +
        `(attempt ${attempt}/${total} failed; retry ${attempt} of ${settings.maxRetries} follows as attempt ` +
        `${attempt + 1}/${total})`,
      action: 'Rescheduling with exact same parameters',
    });
    ctx.events.emit('retry', { ...ended.where, retry: attempt, maxRetries: settings.maxRetries, issue: ended.issue });
    attempt++;
    rerun = 0;
  }
}

// No retry left: the Manager gets an error result (on_exhausted: manager, SPEC §5b), or the run halts (exit 3).
function exhausted(ctx: RunContext, run: AgentRun, settings: Settings, ended: InvalidAttempt): Record<string, unknown> {
  const { maxRetries } = settings;
  const total = maxRetries + 1;
  const { role, roleFile } = ended.invocation;
  const attempt = `${maxRetries}/${maxRetries} (attempt ${total}/${total} failed; no retry left: it was the last)`;
  if (run.handOver) {
    const message = `${role} gave no valid reply for ${run.task} in ${total} attempts: ${ended.judgement.issue}`;
    logFailure(ctx, run, ended, {
      kind: 'Retries Exhausted',
      attempt,
      action:
        'Handing the Manager {"status": "error"} for this task (on_exhausted: manager); it decides what runs next',
    });
    ctx.events.emit('handed_to_manager', { ...ended.where, attempts: total, issue: ended.issue, message });
    return { status: 'error', message };
  }
  logFailure(ctx, run, ended, {
    kind: 'Halt',
    attempt,
    action: 'Halting: retries exhausted; the board is unchanged and the next run resumes at this task',
  });
  ctx.events.emit('halted', { ...ended.where, exitCode: 3, reason: 'retries_exhausted', issue: ended.issue });
  const last = ended.stdoutFile ? `; last output: ${ended.stdoutFile}` : '';
  throw new RetriesExhaustedError(
    `${role} gave no valid reply for ${run.task} in ${total} attempt(s); the last one ${ended.judgement.issue}. ` +
      `The board is unchanged. ` +
      `Log: supervisor.log.md${last}. Fix the agent or ${roleFile}, then run again to resume at this task.`,
  );
}

// The Supervisor Log's entry of an invalid attempt (SPEC §4): the issue, what was expected and what was received.
function logFailure(
  ctx: RunContext,
  run: AgentRun,
  ended: InvalidAttempt,
  entry: Pick<LogEntry, 'kind' | 'attempt' | 'action'>,
): void {
  ctx.world.log({
    agent: ended.invocation.role,
    task: logTaskOf(run),
    issue: ended.issue,
    expected: ended.expected,
    received: ended.judgement.received,
    ...entry,
  });
}

/** The Supervisor Log's name for what an agent run is about. */
function logTaskOf(run: AgentRun): string {
  if (run.inputs.done_task === undefined) return run.task;
  return (
    `${run.inputs.kanban_file} ` +
    `(${run.inputs.done_task === null ? `trigger: ${run.trigger ?? '?'}` : `done_task: ${run.inputs.done_task}`})`
  );
}
