import type { AgentInputs } from '../agent/invocation.js';
import { describeCommand } from '../agent/invocation.js';
import { prepareAgent } from '../agent/prepare.js';
import type { Board } from '../board/read.js';
import { throwIfStopped, type RunContext } from '../context.js';
import { InterruptedError, RetriesExhaustedError } from '../errors.js';
import { appendEntry } from '../log/supervisor-log.js';
import { judgeAttempt } from '../reply/judge.js';
import { expectedReply } from '../schemas.js';
import { shorten } from '../util/text.js';
import type { Settings } from '../settings.js';

// Events carry the start of each reply's message (the reply itself goes to the Manager whole).
const MESSAGE_CHARS = 500;

/** One agent run of a step: a role's agent on its inputs, retried until it replies in the right format. */
export interface AgentRun {
  step: number;
  inputs: AgentInputs;
  /** The task it is about: the worker's task, or the task the Manager hears about. */
  task: string;
}

/**
 * Run an agent until it gives a reply in the right format, at most `max_retries` times more,
 * repeating the very same invocation each time (SPEC §4). Every retry is logged; after the
 * last one it throws, and nothing touches the board. See README.md for the attempt lifecycle.
 */
export async function runAgent(ctx: RunContext, board: Board, settings: Settings, run: AgentRun): Promise<Record<string, unknown>> {
  const { invocation, output, rules } = prepareAgent(ctx, board, settings, run.inputs, run.step);
  const total = settings.maxRetries + 1;
  // The Manager's events name the board and the task it hears about as fields of their own.
  const where = { step: run.step, role: invocation.role, task: run.task, ...(run.inputs.done_task !== undefined && { board: run.inputs.kanban_file, done_task: run.inputs.done_task }) };
  const logTask = run.inputs.done_task === undefined ? run.task : `${run.inputs.kanban_file} (done_task: ${run.inputs.done_task})`;
  for (let attempt = 1; attempt <= total; attempt++) {
    // A stop (Ctrl-C, a lost lock) after an invalid attempt ends the run instead of a retry.
    throwIfStopped(ctx.stop);
    const files = ctx.output.open(run.step, invocation.role, attempt, run.task);
    ctx.events.emit('attempt_started', { ...where, attempt, of: total, command: describeCommand(invocation, 200), timeoutMs: invocation.timeoutMs });
    const result = await ctx.runAttempt(invocation, files, ctx);
    const judgement = result.end === 'interrupted' ? null : judgeAttempt(result, output, rules, invocation);
    const written = ctx.output.close(files, judgement?.valid !== true);
    ctx.events.emit('attempt_finished', {
      ...where,
      attempt,
      end: result.end,
      exitCode: result.exitCode,
      signal: result.signal,
      killedWith: result.killedWith,
      durationMs: result.durationMs,
      stdoutBytes: result.stdoutBytes,
      valid: judgement?.valid ?? false,
      ...(judgement && !judgement.valid && { issue: judgement.issue }),
      ...(judgement?.valid && { via: judgement.via, status: judgement.reply.status, message: shorten(String(judgement.reply.message), MESSAGE_CHARS) }),
      ...(written.out && { stdoutFile: written.out }),
      ...(written.err && { stderrFile: written.err }),
      ...((files.out.error ?? files.err.error) && { logError: files.out.error ?? files.err.error }),
    });
    // A link planted at a log's name is refused, never written through, and ends the run.
    const refusal = files.out.refusal ?? files.err.refusal;
    if (refusal) throw refusal;
    // The stop's reason is the error to end with (a signal, or a lost lock).
    if (!judgement) throw (ctx.stop.interrupt.reason as Error | undefined) ?? new InterruptedError(`Interrupted: ${invocation.role} was stopped.`, 'SIGINT');
    if (judgement.valid) return judgement.reply;

    const issue = `Invalid output format: ${invocation.role} (${describeCommand(invocation)}) ${judgement.issue}`;
    const entry = { time: ctx.clock.now(), agent: invocation.role, task: logTask, issue, expected: expectedReply(rules.manager), received: judgement.received };
    if (attempt < total) {
      appendEntry(board.dir, { ...entry, kind: 'Retry Event', attempt: `${attempt}/${settings.maxRetries}`, action: 'Rescheduling with exact same parameters' });
      ctx.events.emit('retry', { ...where, retry: attempt, maxRetries: settings.maxRetries, issue });
      continue;
    }
    appendEntry(board.dir, { ...entry, kind: 'Halt', attempt: `${settings.maxRetries}/${settings.maxRetries}`, action: 'Halting: retries exhausted; the board is unchanged and the next run resumes at this task' });
    ctx.events.emit('halted', { ...where, exitCode: 3, reason: 'retries_exhausted', issue });
    const last = written.out ? `; last output: ${written.out}` : '';
    throw new RetriesExhaustedError(
      `${invocation.role} gave no valid reply for ${run.task} in ${total} attempt(s); the last one ${judgement.issue}. The board is unchanged. ` +
        `Log: supervisor.log.md${last}. Fix the agent or ${invocation.roleFile}, then run again to resume at this task.`,
    );
  }
  throw new Error('unreachable: the retry loop always returns or throws');
}
