// One attempt of an agent run (SPEC §3): the capabilities told, the agent run, both ends
// recorded (runOnce), and its reply judged by the format of its output only (judgeAttempt).
import type { AttemptResult } from '../agent/attempt.js';
import { describeCommand, type Invocation } from '../agent/invocation.js';
import type { PreparedAgent } from '../agent/prepare.js';
import type { Failure } from '../agents/adapter.js';
import { AGENTS, agentFor, classifyFailure } from '../agents/index.js';
import type { AgentInputs } from '../board/inputs.js';
import type { Settings } from '../board/settings.js';
import { InterruptedError } from '../errors.js';
import type { AttemptPlace } from '../event-types.js';
import { checkReply, type ReplyRules } from '../reply/check-reply.js';
import { extractReply, type Envelope, type OutputStrategy } from '../reply/extract.js';
import { exitNote, receivedReply, receivedText, stderrNote, truncatedNote } from '../agent/failure-note.js';
import { stdoutEvents } from '../reply/json.js';
import { expectedReply } from '../schemas.js';
import { checkUsage } from '../spend.js';
import { maskedHead } from '../util/secrets.js';
import { formatDuration } from '../util/duration.js';
import type { RunContext } from './context.js';
import { throwIfStopped } from './world.js';

/** One agent run of a step: a role's agent on its inputs, retried until it replies in the right format. */
export interface AgentRun {
  step: number;
  inputs: AgentInputs;
  /** The worker's task, or the one the Manager hears about (kanban.yaml after a periodic role). */
  task: string;
  /** The periodic role it belongs to (its own run, or the Manager's after it). */
  trigger?: string | undefined;
  /** After the last retry, return the error result for the Manager instead of halting (`on_exhausted: manager`). */
  handOver?: boolean;
}

/** An attempt without a valid reply: where (its events' fields), why, the Supervisor Log's issue and its output. */
export interface InvalidAttempt {
  valid: false;
  where: AttemptPlace;
  invocation: Invocation;
  judgement: { issue: string; received: string };
  issue: string;
  /** The reply schema, as the log shows what was expected. */
  expected: object;
  failure: Failure;
  stdoutFile?: string;
}

// Events carry the start of each reply's message (the reply itself goes to the Manager whole).
const MESSAGE_CHARS = 500;

/**
 * One attempt (N of `of`, re-run `rerun` times), recorded: the capabilities told first, the
 * agent run, its reply judged by format only (SPEC §3), a failure read as its CLI words it
 * (SPEC §4b), its spend read, both ends recorded. A stop (Ctrl-C, a lost lock) ends the run here.
 */
export async function runOnce(
  ctx: RunContext,
  agent: PreparedAgent,
  at: AgentRun & { settings: Settings; attempt: number; of: number; rerun: number },
): Promise<{ valid: true; reply: Record<string, unknown> } | InvalidAttempt> {
  const { invocation } = agent;
  const { attempt, of, rerun } = at;
  throwIfStopped(ctx.world.stop);
  const place = { step: at.step, role: invocation.role, task: at.task };
  const told = await ctx.capabilities.beforeAttempt({ ctx, ...place, invocation, settings: at.settings });
  const where = {
    ...place,
    // The Manager's events name the board and the task it hears about as fields of their own.
    ...(at.inputs.done_task !== undefined && { board: at.inputs.kanban_file, done_task: at.inputs.done_task }),
    ...(at.trigger !== undefined && { trigger: at.trigger }),
  };
  const numbered = { attempt, of, ...(rerun > 0 && { rerun }) };
  const cli = agentFor([invocation.file, ...invocation.args]);
  const files = ctx.output.open(at.step, invocation.role, attempt, at.task, rerun);
  ctx.events.emit('attempt_started', {
    ...where,
    ...numbered,
    command: describeCommand(invocation, 200),
    ...(invocation.agent && { agent: invocation.agent }),
    ...(AGENTS.includes(cli) && { cli: cli.name }),
    timeoutMs: invocation.timeoutMs,
    ...told,
  });
  const result = await ctx.world.runAttempt(invocation, files, {
    stop: ctx.world.stop,
    dir: ctx.board.dir,
    output: ctx.output,
    ...(ctx.world.onLine && { onLine: ctx.world.onLine }),
  });
  const judgement =
    result.end === 'interrupted'
      ? null
      : judgeAttempt(result, agent.output, agent.rules, invocation, AGENTS, ctx.events.secrets);
  // stdout's JSON objects, found once for the failure and the usage.
  const events = stdoutEvents(result.stdout);
  const failure = judgement && !judgement.valid ? readFailure(ctx, agent, result, events) : undefined;
  // A figure that cannot be a spend (negative, infinite) is dropped with a note, never added.
  const { usage, ignored } = checkUsage(result.usage ?? cli.usage(events));
  const written = ctx.output.close(files, judgement?.valid !== true);
  ctx.events.emit('attempt_finished', {
    ...where,
    ...numbered,
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
      status: String(judgement.reply.status),
      message: maskedHead(String(judgement.reply.message), MESSAGE_CHARS, ctx.events.secrets),
    }),
    ...(usage && { usage }),
    ...(ignored.length > 0 && { usageIgnored: ignored }),
    ...(result.acp && { acp: result.acp }),
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
      (ctx.world.stop.interrupt.reason as Error | undefined) ??
      new InterruptedError(`Interrupted: ${invocation.role} was stopped.`, 'SIGINT')
    );
  if (judgement.valid) return { valid: true, reply: judgement.reply };
  return {
    valid: false,
    where,
    invocation,
    judgement,
    issue: `Invalid output format: ${invocation.role} (${describeCommand(invocation)}) ${judgement.issue}`,
    expected: expectedReply(agent.rules.manager),
    failure: failure as Failure,
    ...(written.out && { stdoutFile: written.out }),
  };
}

// Why an attempt failed: what its running output showed, else its envelope and stderr read by
// the role's `failures:` patterns and its CLI's adapter.
function readFailure(
  ctx: RunContext,
  agent: PreparedAgent,
  result: AttemptResult,
  events: Record<string, unknown>[],
): Failure {
  const { invocation } = agent;
  return (
    result.failure ??
    classifyFailure(
      { stdout: result.stdout, stderr: result.stderrTail, exitCode: result.exitCode, events },
      {
        command: [invocation.file, ...invocation.args],
        patterns: agent.failures,
        // The zone a CLI words reset times in. Asked only here: it costs more than judging a valid attempt.
        timeZone: invocation.env.TZ || Intl.DateTimeFormat().resolvedOptions().timeZone,
        now: ctx.world.clock.now(),
        noLogin: agentFor([invocation.file, ...invocation.args]).missingLogin?.(invocation.env),
      },
    )
  );
}

/** An attempt's reply if it is valid, else why not and what was received (bounded, for the log). */
export type Judgement =
  { valid: true; reply: Record<string, unknown>; via: string } | { valid: false; issue: string; received: string };

/**
 * Judge an attempt by the format of its output only (the agent CLIs'
 * envelopes given); the exit code alone never decides (SPEC §3).
 */
export function judgeAttempt(
  result: AttemptResult,
  output: OutputStrategy,
  rules: ReplyRules,
  limits: { timeoutMs: number; idleTimeoutMs: number | null },
  envelopes: readonly Envelope[],
  /** The run's secret values: masked in what is received and quoted before either is cut. */
  secrets: readonly string[] = [],
): Judgement {
  const killed = `was killed with ${result.killedWith ?? 'SIGTERM'}`;
  if (result.end === 'timeout')
    return invalid(`timed out after ${formatDuration(limits.timeoutMs)} and ${killed}`, result, secrets);
  if (result.end === 'idle-timeout')
    return invalid(
      `printed nothing for ${formatDuration(limits.idleTimeoutMs ?? 0)} (idle_timeout) and ${killed}`,
      result,
      secrets,
    );
  if (result.end === 'spawn-failed')
    return invalid(`could not be started: ${result.spawnError ?? 'unknown error'}`, result, secrets);
  if (result.end === 'gave-up') {
    const said =
      result.failure && 'detail' in result.failure ? `as ${result.failure.cli}: ${result.failure.detail}` : 'a failure';
    return invalid(`reported an error ${said}; stopped rather than left to retry it`, result, secrets);
  }
  const extraction = extractReply(result.stdout, output, envelopes, (reply) => checkReply(reply, rules).valid);
  if (!extraction.found)
    return invalid(
      `${extraction.issue}${truncatedNote(result)}${exitNote(result)}${stderrNote(result, secrets)}`,
      result,
      secrets,
    );
  const verdict = checkReply(extraction.reply, rules);
  if (!verdict.valid) {
    return {
      valid: false,
      issue: `replied in the wrong format: ${verdict.issues.slice(0, 3).join('; ')}`,
      received: receivedReply(extraction.reply, secrets),
    };
  }
  return { valid: true, reply: extraction.reply, via: extraction.via };
}

function invalid(issue: string, result: AttemptResult, secrets: readonly string[]): Judgement {
  return { valid: false, issue, received: receivedText(result, secrets) };
}
