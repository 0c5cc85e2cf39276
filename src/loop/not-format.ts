import type { Invocation } from '../agent/invocation.js';
import { throwIfStopped, type RunContext } from './context.js';
import { InputError, LimitWaitError } from '../errors.js';
import { waitingFile } from '../log/waiting.js';
import type { Failure } from '../agents/adapter.js';
import type { Settings } from '../board/settings.js';
import { formatDuration } from '../util/duration.js';
import { localStamp } from '../util/time.js';
import { appendEntry } from '../log/supervisor-log.js';
import { lookForSharedLimit, recordSharedLimit, type SharedAccount } from '../limits/shared.js';

/**
 * Failed attempts that are not the agent's fault (SPEC §4b) and spend no format retry: a usage
 * limit is waited out, a transient service error backed off from, a missing login stops the run.
 */

/** Where the failure happened, for events and messages. */
export interface FailedRun {
  step: number;
  role: string;
  task: string;
}

// A reset time is the end of the minute a CLI shows; a little more is given so the first
// request after it is not refused again.
const MARGIN_MS = 30_000;
// A usage limit with no usable reset time is waited for limit_wait, then twice as long, up to this.
const MAX_FALLBACK_MS = 3_600_000;
// Never less than this, even with limit_wait: 0 — doubling nothing would call the CLI in a burst.
const MIN_FALLBACK_MS = 1000;
// A reset further off than a year is no reset a CLI means (a misread date, a wrong unit).
const ABSURD_MS = 366 * 86_400_000;
const MAX_BACKOFF_MS = 10 * 60_000;

/** When a limited agent may run again, and whether the CLI's reset time was used for it. */
export interface LimitWait {
  until: number;
  resetKnown: boolean;
}

/**
 * When to try a limited agent again (pure): its reset time plus a margin when that is a time
 * ahead within a year; else — no reset given, one already past (clock skew, a stale resetsAt),
 * or an absurd one — limit_wait doubled for each such wait before (`fallbacks`), at least a
 * second and at most an hour, so a reset that never holds is a backoff, never a burst of calls.
 */
export function limitWaitUntil(now: number, resetAt: Date | null, limitWaitMs: number, fallbacks: number): LimitWait {
  const reset = resetAt?.getTime() ?? NaN;
  if (Number.isFinite(reset) && reset > now && reset - now <= ABSURD_MS)
    return { until: reset + MARGIN_MS, resetKnown: true };
  return {
    until: now + Math.min(Math.max(limitWaitMs, MIN_FALLBACK_MS) * 2 ** fallbacks, MAX_FALLBACK_MS),
    resetKnown: false,
  };
}

/** Wait for a usage limit to reset (or, without a usable reset time, a fallback that doubles), then let the same attempt run again. */
export async function waitForLimit(
  ctx: RunContext,
  settings: Settings,
  where: FailedRun,
  failure: Extract<Failure, { kind: 'usage_limit' }>,
  shared?: SharedAccount,
): Promise<void> {
  const now = ctx.clock.now().getTime();
  const { until, resetKnown } = limitWaitUntil(now, failure.resetAt, settings.limitWaitMs, ctx.limits.fallbacks);
  if (!resetKnown) ctx.limits.fallbacks++;
  // Every supervisor of the account waits for a reset the CLI gave (a guess is this run's own);
  // recorded before the cap, so that a run ending with exit 69 still tells the others.
  const note = resetKnown && shared ? recordSharedLimit(shared, ctx.file, now, until) : undefined;
  // A reset given but not used is named, so a person sees why the wait is not until then.
  const given =
    !resetKnown && failure.resetAt && Number.isFinite(failure.resetAt.getTime())
      ? { ignoredReset: failure.resetAt.toISOString() }
      : {};
  await waitOut(
    ctx,
    settings,
    where,
    { now, until, resetKnown, cli: failure.cli, reason: failure.detail, said: `The CLI said: ${failure.detail}` },
    { ...given, ...(note && { sharedLimitUnrecorded: note }) },
  );
}

/**
 * Before an attempt: wait, without calling the CLI, for a limit another supervisor of the same
 * account learnt (src/limits/); the wait is capped like one learnt here. An entry that cannot be
 * used is ignored and the note returned, for the attempt's event.
 */
export async function waitForSharedLimit(
  ctx: RunContext,
  settings: Settings,
  where: FailedRun,
  shared: SharedAccount,
): Promise<string | undefined> {
  const now = ctx.clock.now().getTime();
  const look = lookForSharedLimit(shared, now, ctx.file);
  if (!look.limit) return look.ignored;
  const { entry, until, file } = look.limit;
  const reason = `not calling it: the supervisor of ${entry.board} learnt at ${entry.since} that this account (${entry.account}) is limited until then`;
  const said = `Shared by another supervisor (${file}): ${reason}.`;
  await waitOut(
    ctx,
    settings,
    where,
    { now, until, resetKnown: true, cli: entry.cli, reason, said },
    { learntFrom: entry.board, learntAt: entry.since, sharedFile: file },
  );
  return undefined;
}

interface Wait {
  now: number;
  until: number;
  resetKnown: boolean;
  cli: string;
  /** Why, for the event and the console: the CLI's words, or where the limit was learnt. */
  reason: string;
  /** Whose words those are, as the last sentence of an exit-69 message. */
  said: string;
}

// Wait until `wait.until` (waiting.json says so meanwhile) unless that goes past a cap (exit 69); Ctrl-C ends it.
async function waitOut(
  ctx: RunContext,
  settings: Settings,
  where: FailedRun,
  wait: Wait,
  fields: Record<string, unknown>,
): Promise<void> {
  const { now, until, resetKnown, cli, reason, said } = wait;
  const waiting = {
    for: 'usage_limit' as const,
    reason,
    since: new Date(now).toISOString(),
    until: new Date(until).toISOString(),
    role: where.role,
    task: where.task,
    cli,
    pid: process.pid,
  };
  waitingFile.write(ctx.dir, waiting);
  const cap = limitCap(ctx, settings, now, until);
  if (cap) {
    const waited = ctx.limits.waitedMs > 0 ? ` after waiting ${formatDuration(ctx.limits.waitedMs)} already` : '';
    appendEntry(
      ctx.dir,
      {
        time: new Date(now),
        kind: 'Halt',
        agent: where.role,
        task: where.task,
        issue: `Usage limit (${cli}) until ${waiting.until}${waited}, past ${cap.name}: ${reason}`,
        action: 'Stopping (exit 69); the board is unchanged and the next run resumes at this task after the reset',
      },
      ctx.events.secrets,
    );
    throw new LimitWaitError(
      `${where.role}'s ${cli} usage limit ${resetKnown ? 'resets' : 'gave no usable reset time; the next try would be'} at ${localStamp(until)} (in ${formatDuration(until - now)}), later than ${cap.words}${waited}. ` +
        `The board is unchanged; run again after ${localStamp(until)} (status --json shows it as waiting.until)${cap.fix}. ${said}`,
      new Date(until),
    );
  }
  ctx.events.emit('limit_wait', {
    ...where,
    until: waiting.until,
    waitMs: until - now,
    reason,
    cli,
    resetKnown,
    ...fields,
  });
  await sleepUntil(ctx, until);
  throwIfStopped(ctx.stop); // Ctrl-C ends the wait at once
  ctx.limits.waitedMs += ctx.clock.now().getTime() - now;
  waitingFile.clear(ctx.dir);
  ctx.events.emit('limit_resumed', { ...where, waitedMs: ctx.clock.now().getTime() - now });
}

// What a wait until `until` would go past, if anything: max_limit_wait in all, or the run's --max-time deadline.
function limitCap(
  ctx: RunContext,
  settings: Settings,
  now: number,
  until: number,
): { name: string; words: string; fix: string } | undefined {
  if (ctx.limits.waitedMs + (until - now) > settings.maxLimitWaitMs) {
    return {
      name: `max_limit_wait (${formatDuration(settings.maxLimitWaitMs)})`,
      words: `max_limit_wait (${formatDuration(settings.maxLimitWaitMs)}) lets this run wait`,
      fix: ', or raise supervisor.max_limit_wait',
    };
  }
  if (ctx.deadline && until > ctx.deadline.getTime()) {
    return {
      name: `the run's time limit (${localStamp(ctx.deadline.getTime())})`,
      words: `this run's time limit (--max-time or supervisor.max_time) ends it at ${localStamp(ctx.deadline.getTime())}`,
      fix: '',
    };
  }
  return undefined;
}

/** A run started while an earlier one waited for a usage limit waits for the rest of it, rather than hitting the limit again. */
export async function resumeKnownWait(ctx: RunContext, settings: Settings): Promise<void> {
  const known = waitingFile.read(ctx.dir);
  // A resident run's wait for a board change ended with that run (this one holds the lock now).
  if (known?.for === 'board_change') return waitingFile.clear(ctx.dir);
  if (known?.for !== 'usage_limit' || known.until === undefined) return;
  const until = Date.parse(known.until);
  if (!(until > ctx.clock.now().getTime())) return waitingFile.clear(ctx.dir);
  // Within the margin after the reset: only the margin is left to wait.
  if (until - MARGIN_MS <= ctx.clock.now().getTime()) {
    await sleepUntil(ctx, until);
    throwIfStopped(ctx.stop);
    return waitingFile.clear(ctx.dir);
  }
  const where = { step: 0, role: known.role ?? 'agent', task: known.task ?? '' };
  await waitForLimit(ctx, settings, where, {
    kind: 'usage_limit',
    cli: known.cli ?? 'the agent',
    detail: known.reason,
    resetAt: new Date(until - MARGIN_MS),
  });
}

/** Back off from a transient service error before the same attempt runs again (`retry` counts from 1). */
export async function backOff(
  ctx: RunContext,
  settings: Settings,
  where: FailedRun,
  failure: Extract<Failure, { kind: 'transient' }>,
  retry: number,
): Promise<void> {
  const waitMs = Math.min(settings.transientBackoffMs * 2 ** (retry - 1), MAX_BACKOFF_MS);
  ctx.events.emit('backoff', {
    ...where,
    retry,
    of: settings.transientRetries,
    waitMs,
    reason: failure.detail,
    cli: failure.cli,
  });
  await ctx.clock.sleep(waitMs, ctx.stop.interrupt);
  throwIfStopped(ctx.stop);
}

/** The error that stops a run whose agent CLI has no usable login: no retry can help, a person must log in (exit 2). */
export function loginError(invocation: Invocation, failure: Extract<Failure, { kind: 'login' }>): InputError {
  return new InputError(
    `${invocation.roleFile}: ${invocation.role}'s ${failure.cli} cannot work until someone logs in or fixes its account: ${failure.detail}. ${failure.hint} Then run again to resume at this task.`,
  );
}

// Node's timers hold at most 24.8 days; a longer wait is slept in parts.
async function sleepUntil(ctx: RunContext, until: number): Promise<void> {
  for (
    let left = until - ctx.clock.now().getTime();
    left > 0 && !ctx.stop.interrupt.aborted;
    left = until - ctx.clock.now().getTime()
  ) {
    await ctx.clock.sleep(left, ctx.stop.interrupt);
  }
}
