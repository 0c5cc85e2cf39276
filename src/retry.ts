import path from 'node:path';
import type { RunAttempt } from './agent/attempt.js';
import { describeCommand, type Invocation } from './agent/invocation.js';
import { InterruptedError, RetriesExhaustedError } from './errors.js';
import type { EventLog } from './log/events.js';
import { appendEntry } from './log/supervisor-log.js';
import type { OutputStrategy } from './reply/extract.js';
import { judgeAttempt } from './reply/judge.js';
import type { ReplyRules } from './reply/validate.js';
import { expectedReply } from './schemas.js';

/** One agent run: the invocation every attempt repeats exactly, and how its reply is judged. */
export interface AgentRun {
  invocation: Invocation;
  output: OutputStrategy;
  rules: ReplyRules;
  step: number;
  /** What the Supervisor Log names as the task (the task file, or the board for the Manager). */
  task: string;
  maxRetries: number;
}

/** The side effects an agent run needs, passed in so the loop can be tested without real agents. */
export interface RetryDeps {
  runAttempt: RunAttempt;
  events: EventLog;
  boardDir: string;
  /** Folder for this run's attempt output files. */
  runDir: string;
  killGraceMs: number;
  interrupt?: AbortSignal;
  forceStop?: AbortSignal;
  onLine?: (line: string) => void;
  /** Where the running agent's group is recorded, so a run after a crash can stop it. */
  agentFile?: string;
  clock: () => Date;
}

/**
 * Run an agent until it gives a reply in the right format, at most `maxRetries`
 * times more, repeating the very same invocation object each time (SPEC §4).
 * Every retry is logged; after the last one it throws, and nothing touches the board.
 */
export async function runWithRetries(run: AgentRun, deps: RetryDeps): Promise<Record<string, unknown>> {
  const { invocation, step, maxRetries } = run;
  const total = maxRetries + 1;
  for (let attempt = 1; attempt <= total; attempt++) {
    const base = `${String(step).padStart(4, '0')}-${invocation.role.toLowerCase()}-${attempt}`;
    const files = { outFile: path.join(deps.runDir, `${base}.out`), errFile: path.join(deps.runDir, `${base}.err`) };
    const where = { step, role: invocation.role, task: run.task, attempt };
    // An interrupt (or a lost lock) after an invalid attempt ends the run instead of a retry.
    if (deps.interrupt?.aborted) throw deps.interrupt.reason as Error;
    deps.events.emit('attempt_started', { ...where, of: total, command: describeCommand(invocation, 200), timeoutMs: invocation.timeoutMs });
    const result = await deps.runAttempt(invocation, {
      ...files,
      killGraceMs: deps.killGraceMs,
      ...(deps.interrupt && { interrupt: deps.interrupt }),
      ...(deps.forceStop && { forceStop: deps.forceStop }),
      ...(deps.onLine && { onLine: deps.onLine }),
      ...(deps.agentFile && { agentFile: deps.agentFile, task: run.task }),
    });
    const judgement = result.end === 'interrupted' ? null : judgeAttempt(result, run.output, run.rules, invocation.timeoutMs, invocation.idleTimeoutMs);
    deps.events.emit('attempt_finished', {
      ...where,
      end: result.end,
      exitCode: result.exitCode,
      signal: result.signal,
      killedWith: result.killedWith,
      durationMs: result.durationMs,
      stdoutBytes: result.stdoutBytes,
      valid: judgement?.valid ?? false,
      ...(judgement && !judgement.valid && { issue: judgement.issue }),
      ...(judgement?.valid && { via: judgement.via, status: judgement.reply.status }),
      stdoutFile: path.relative(deps.boardDir, files.outFile),
      stderrFile: path.relative(deps.boardDir, files.errFile),
    });
    // The interrupt's reason is the error to stop with (a signal, or a lost lock).
    if (!judgement) throw (deps.interrupt?.reason as Error | undefined) ?? new InterruptedError(`Interrupted: ${invocation.role} was stopped.`, 'SIGINT');
    if (judgement.valid) return judgement.reply;

    const issue = `Invalid output format: ${invocation.role} (${describeCommand(invocation)}) ${judgement.issue}`;
    const entry = { time: deps.clock(), agent: invocation.role, task: run.task, issue, expected: expectedReply(run.rules.manager), received: judgement.received };
    if (attempt < total) {
      appendEntry(deps.boardDir, { ...entry, kind: 'Retry Event', attempt: `${attempt}/${maxRetries}`, action: 'Rescheduling with exact same parameters' });
      deps.events.emit('retry', { ...where, retry: attempt, maxRetries, issue });
      continue;
    }
    appendEntry(deps.boardDir, { ...entry, kind: 'Halt', attempt: `${maxRetries}/${maxRetries}`, action: 'Halting: retries exhausted; the board is unchanged and the next run resumes at this task' });
    deps.events.emit('halted', { ...where, exitCode: 3, reason: 'retries_exhausted', issue });
    throw new RetriesExhaustedError(
      `${invocation.role} gave no valid reply for ${run.task} in ${total} attempt(s); the last one ${judgement.issue}. The board is unchanged. ` +
        `Log: supervisor.log.md; last output: ${path.relative(deps.boardDir, files.outFile)}. Fix the agent or ${invocation.roleFile}, then run again to resume at this task.`,
    );
  }
  throw new Error('unreachable: the retry loop always returns or throws');
}
