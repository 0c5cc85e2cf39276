import { describeCommand } from '../agent/invocation.js';
import type { AgentInputs } from '../board/inputs.js';
import { prepareAgent } from '../agent/prepare.js';
import type { Board } from '../board/read.js';
import { throwIfStopped, type RunContext } from './context.js';
import { GuardError, InterruptedError, RetriesExhaustedError } from '../errors.js';
import { appendEntry } from '../log/supervisor-log.js';
import type { Failure } from '../agents/adapter.js';
import { AGENTS, agentFor, classifyFailure } from '../agents/index.js';
import { judgeAttempt } from './judge.js';
import { stdoutEvents } from '../reply/json.js';
import { expectedReply } from '../schemas.js';
import type { Settings } from '../board/settings.js';
import { checkUsage, formatSpend } from '../spend.js';
import { shorten } from '../util/text.js';
import { backOff, loginError, waitForLimit, waitForSharedLimit } from './not-format.js';
import { sharedAccountOf } from '../limits/shared.js';

/** One agent run of a step: a role's agent on its inputs, retried until it replies in the right format. */
export interface AgentRun {
  step: number;
  inputs: AgentInputs;
  /** The task it is about: the worker's task, or the task the Manager hears about (kanban.yaml for a periodic role). */
  task: string;
  /** The periodic role this agent run belongs to (its own run, or the Manager's after it). */
  trigger?: string;
  /** After the last retry, return the error result the Manager is to get instead of halting (`on_exhausted: manager`). */
  handOver?: boolean;
}

// Events carry the start of each reply's message (the reply itself goes to the Manager whole).
const MESSAGE_CHARS = 500;

/**
 * Run an agent until it gives a reply in the right format, at most `max_retries` times more,
 * repeating the very same invocation each time (SPEC §4). Every retry is logged; after the last
 * one it throws, and nothing touches the board — or, with `handOver`, returns the error result the
 * Manager is to get for the task (`on_exhausted: manager`). A usage limit, a transient service error or a
 * missing login spends no retry (not-format.ts). See src/agent/README.md for the lifecycle.
 */
export async function runAgent(
  ctx: RunContext,
  board: Board,
  settings: Settings,
  run: AgentRun,
): Promise<Record<string, unknown>> {
  const { invocation, output, rules, failures } = prepareAgent(ctx, board, settings, run.inputs, run.step);
  const total = settings.maxRetries + 1;
  // The Manager's events name the board and the task it hears about as fields of their own.
  const where = {
    step: run.step,
    role: invocation.role,
    task: run.task,
    ...(run.inputs.done_task !== undefined && { board: run.inputs.kanban_file, done_task: run.inputs.done_task }),
    ...(run.trigger !== undefined && { trigger: run.trigger }),
  };
  const logTask = logTaskOf(run);
  const halt = (issue: string, action: string) =>
    appendEntry(
      board.dir,
      { time: ctx.clock.now(), kind: 'Halt', agent: invocation.role, task: logTask, issue, action },
      ctx.events.secrets,
    );
  const place = { step: run.step, role: invocation.role, task: run.task };
  const reading = { command: [invocation.file, ...invocation.args], patterns: failures };
  // Which CLI this is, decided once for every attempt of the agent run (its argv never changes).
  const agent = agentFor(reading.command);
  const cli = AGENTS.includes(agent) ? { cli: agent.name } : {};
  // The account the CLI runs as, from the agent's own environment: its usage limits are shared (SPEC §4b).
  const shared = sharedAccountOf(invocation, settings, ctx.dir, ctx.env);
  let transient = 0;
  // Attempt N of `total` in events, files, the console and the log alike; a re-run of it after a
  // usage limit or a service error keeps N and is told apart by `rerun`.
  for (let attempt = 1, rerun = 0; attempt <= total;) {
    // A stop (Ctrl-C, a lost lock) after an invalid attempt ends the run instead of a retry.
    throwIfStopped(ctx.stop);
    // A limit another supervisor of the account learnt is waited out here, without calling the CLI.
    const sharedIgnored = await waitForSharedLimit(ctx, settings, place, shared);
    const files = ctx.output.open(run.step, invocation.role, attempt, run.task, rerun);
    ctx.events.emit('attempt_started', {
      ...where,
      attempt,
      of: total,
      ...(rerun > 0 && { rerun }),
      command: describeCommand(invocation, 200),
      ...cli,
      timeoutMs: invocation.timeoutMs,
      ...(sharedIgnored && { sharedLimitIgnored: sharedIgnored }),
    });
    const result = await ctx.runAttempt(invocation, files, ctx);
    const judgement = result.end === 'interrupted' ? null : judgeAttempt(result, output, rules, invocation, AGENTS);
    // stdout's JSON objects, found once for the failure and the usage.
    const events = stdoutEvents(result.stdout);
    const failure: Failure | undefined =
      judgement && !judgement.valid
        ? (result.failure ??
          classifyFailure(
            { stdout: result.stdout, stderr: result.stderrTail, exitCode: result.exitCode, events },
            { ...reading, timeZone: agentTimeZone(invocation), now: ctx.clock.now() },
          ))
        : undefined;
    // A figure that cannot be a spend (negative, infinite) is dropped with a note, never added.
    const { usage, ignored } = checkUsage(agent.usage(events));
    ctx.spend.add(usage);
    const written = ctx.output.close(files, judgement?.valid !== true);
    ctx.events.emit('attempt_finished', {
      ...where,
      attempt,
      of: total,
      ...(rerun > 0 && { rerun }),
      end: result.end,
      exitCode: result.exitCode,
      signal: result.signal,
      killedWith: result.killedWith,
      durationMs: result.durationMs,
      stdoutBytes: result.stdoutBytes,
      valid: judgement?.valid ?? false,
      ...(judgement && !judgement.valid && { issue: judgement.issue, failure: failure?.kind }),
      ...(judgement?.valid && {
        via: judgement.via,
        status: judgement.reply.status,
        message: shorten(String(judgement.reply.message), MESSAGE_CHARS),
      }),
      ...(usage && { usage }),
      ...(ignored.length > 0 && { usageIgnored: ignored }),
      ...(written.out && { stdoutFile: written.out }),
      ...(written.err && { stderrFile: written.err }),
      ...((files.out.error ?? files.err.error) && { logError: files.out.error ?? files.err.error }),
    });
    // A link planted at a log's name is refused, never written through, and ends the run.
    const refusal = files.out.refusal ?? files.err.refusal;
    if (refusal) throw refusal;
    // The stop's reason is the error to end with (a signal, a lost lock, closed output).
    if (!judgement)
      throw (
        (ctx.stop.interrupt.reason as Error | undefined) ??
        new InterruptedError(`Interrupted: ${invocation.role} was stopped.`, 'SIGINT')
      );
    // The budget is checked between steps (loop.ts): a reply paid for always reaches the Manager.
    if (judgement.valid) return judgement.reply;

    if (failure?.kind === 'login') {
      halt(`Login missing or rejected (${failure.cli}): ${failure.detail}`, `Halting for a person: ${failure.hint}`);
      throw loginError(invocation, failure);
    }
    if (failure?.kind === 'usage_limit') {
      await waitForLimit(ctx, settings, place, failure, shared);
      rerun++;
      continue; // the same attempt again, identical inputs; no retry spent
    }
    if (failure?.kind === 'transient' && transient < settings.transientRetries) {
      await backOff(ctx, settings, place, failure, ++transient);
      rerun++;
      continue;
    }

    // The budget is reached and no reply came (a call stopped at its --max-budget-usd): a retry
    // would only spend past the cap, and stopping throws no paid reply away (SPEC §4b).
    const spent = ctx.spend.reached(settings);
    if (spent) {
      const message =
        `Stopped: this run's agents have spent ${formatSpend(ctx.spend.total)}, reaching ${spent}, and ` +
        `${invocation.role} gave no reply for ${run.task} within it (${judgement.issue}); a retry would spend ` +
        'past it. The board is unchanged. Raise the budget (or pass --max-cost) and run again to resume at this task.';
      halt(message, 'Stopping (exit 5); the board is unchanged');
      throw new GuardError(message);
    }
    const issue = `Invalid output format: ${invocation.role} (${describeCommand(invocation)}) ${judgement.issue}`;
    const entry = {
      time: ctx.clock.now(),
      agent: invocation.role,
      task: logTask,
      issue,
      expected: expectedReply(rules.manager),
      received: judgement.received,
    };
    if (attempt < total) {
      appendEntry(
        board.dir,
        {
          ...entry,
          kind: 'Retry Event',
          attempt: `${attempt}/${settings.maxRetries} (retry ${attempt} of ${settings.maxRetries} follows: attempt ${attempt + 1}/${total})`,
          action: 'Rescheduling with exact same parameters',
        },
        ctx.events.secrets,
      );
      ctx.events.emit('retry', { ...where, retry: attempt, maxRetries: settings.maxRetries, issue });
      attempt++;
      rerun = 0;
      continue;
    }
    if (run.handOver) {
      const message = `${invocation.role} gave no valid reply for ${run.task} in ${total} attempts: ${judgement.issue}`;
      appendEntry(
        board.dir,
        {
          ...entry,
          kind: 'Retries Exhausted',
          attempt: `${settings.maxRetries}/${settings.maxRetries} (no retry left: attempt ${total}/${total} was the last)`,
          action:
            'Handing the Manager {"status": "error"} for this task (on_exhausted: manager); it decides what runs next',
        },
        ctx.events.secrets,
      );
      ctx.events.emit('handed_to_manager', { ...where, attempts: total, issue, message });
      return { status: 'error', message }; // on_exhausted: manager — the Manager decides (SPEC §5b)
    }
    appendEntry(
      board.dir,
      {
        ...entry,
        kind: 'Halt',
        attempt: `${settings.maxRetries}/${settings.maxRetries} (no retry left: attempt ${total}/${total} was the last)`,
        action: 'Halting: retries exhausted; the board is unchanged and the next run resumes at this task',
      },
      ctx.events.secrets,
    );
    ctx.events.emit('halted', { ...where, exitCode: 3, reason: 'retries_exhausted', issue });
    const last = written.out ? `; last output: ${written.out}` : '';
    throw new RetriesExhaustedError(
      `${invocation.role} gave no valid reply for ${run.task} in ${total} attempt(s); the last one ${judgement.issue}. The board is unchanged. ` +
        `Log: supervisor.log.md${last}. Fix the agent or ${invocation.roleFile}, then run again to resume at this task.`,
    );
  }
  throw new Error('unreachable: the retry loop always returns or throws');
}

/** The Supervisor Log's name for what an agent run is about. */
function logTaskOf(run: AgentRun): string {
  if (run.inputs.done_task === undefined) return run.task;
  return `${run.inputs.kanban_file} (${run.inputs.done_task === null ? `trigger: ${run.trigger ?? '?'}` : `done_task: ${run.inputs.done_task}`})`;
}

// The time zone a CLI words its reset times in: the agent's TZ, else the system's. Asked only
// when a failure is read: resolving it costs more than the rest of a valid attempt's judging.
function agentTimeZone(invocation: { env: Readonly<Record<string, string>> }): string {
  return invocation.env.TZ || Intl.DateTimeFormat().resolvedOptions().timeZone;
}
