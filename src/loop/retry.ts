import { prepareAgent } from '../agent/prepare.js';
import type { Board } from '../board/read-board.js';
import type { Settings } from '../board/settings.js';
import { RetriesExhaustedError } from '../errors.js';
import type { LogEntry } from '../log/supervisor-log.js';
import type { RunContext } from './context.js';
import { runOnce, type AgentRun, type InvalidAttempt } from './run-once.js';

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
      { env: ctx.world.env, runId: ctx.runId, schemas: ctx.schemas, ...(spent && { spend: { total: spent } }) },
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
