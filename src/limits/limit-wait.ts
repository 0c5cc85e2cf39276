import type { Failure } from '../agents/adapter.js';
import type { LimitSettings } from './settings.js';
import { LimitWaitError } from '../errors.js';
import type { EventFields } from '../event-types.js';
import { waitingFile, type Waiting } from '../log/waiting.js';
import type { CapabilityRun } from '../loop/context.js';
import { sleepUntil, throwIfStopped } from '../loop/world.js';
import { formatDuration } from '../util/duration.js';
import { localStamp } from '../util/time.js';
import { lookForSharedLimit, recordSharedLimit, type SharedAccount } from './shared.js';

/** Where a limited agent run stands, for events and messages. */
export interface WaitPlace {
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

/** A wait as it is told: until when, whose words, and the fields of its limit_wait event. */
export interface Wait {
  now: number;
  until: number;
  resetKnown: boolean;
  cli: string;
  /** Why, for the event and the console: the CLI's words, or where the limit was learnt. */
  reason: string;
  /** Whose words those are, as the last sentence of an exit-69 message. */
  said: string;
  /** Where it was learnt, when not from the CLI: another supervisor's entry (waiting.json and the event say so). */
  source?: Pick<Waiting, 'learntFrom' | 'learntAt' | 'sharedFile'>;
  /** More fields of its limit_wait event. */
  notes?: Pick<EventFields['limit_wait'], 'ignoredReset' | 'sharedLimitUnrecorded'>;
}

/**
 * The usage-limit waits of one run (SPEC §4b): how long it waited so far — max_limit_wait caps
 * them all — and how many had no usable reset time (each such wait twice the one before).
 */
export class LimitWaits {
  private waitedMs = 0;
  private fallbacks = 0;

  constructor(
    private readonly ctx: CapabilityRun,
    /** When the run must have ended (--max-time), as the core passed it when the run started. */
    private readonly deadline?: Date,
  ) {}

  /** Wait for a limit the CLI reported (a fallback without a usable reset), telling its account's other supervisors. */
  async own(
    settings: LimitSettings,
    where: WaitPlace,
    failure: Extract<Failure, { kind: 'usage_limit' }>,
    shared?: SharedAccount,
  ): Promise<void> {
    await this.waitOut(settings, where, this.learn(settings, failure, shared));
  }

  /** Until when a limit the CLI reported holds (guessed without a usable reset), told to the account's others. */
  learn(settings: LimitSettings, failure: Extract<Failure, { kind: 'usage_limit' }>, shared?: SharedAccount): Wait {
    const now = this.ctx.world.clock.now().getTime();
    const { until, resetKnown } = limitWaitUntil(now, failure.resetAt, settings.limitWaitMs, this.fallbacks);
    if (!resetKnown) this.fallbacks++;
    // Recorded before the cap, so that a run ending with exit 69 still tells the others; a guess stays ours.
    const note = resetKnown && shared ? recordSharedLimit(shared, this.ctx.board.file, now, until) : undefined;
    // A reset given but not used is named, so a person sees why the wait is not until then.
    const ignored = !resetKnown && failure.resetAt && Number.isFinite(failure.resetAt.getTime());
    return {
      now,
      until,
      resetKnown,
      cli: failure.cli,
      reason: failure.detail,
      said: `The CLI said: ${failure.detail}`,
      notes: {
        ...(ignored && { ignoredReset: failure.resetAt?.toISOString() }),
        ...(note && { sharedLimitUnrecorded: note }),
      },
    };
  }

  /**
   * Before an attempt: wait, without calling the CLI, for a limit another supervisor of the
   * account learnt — never past what max_limit_wait leaves this run, nor past its time limit:
   * then the CLI itself is called (another board's entry never ends this run). Returns a note on
   * an entry ignored, for the attempt's event.
   */
  async shared(settings: LimitSettings, where: WaitPlace, shared: SharedAccount): Promise<string | undefined> {
    const now = this.ctx.world.clock.now().getTime();
    const look = lookForSharedLimit(shared, now, this.ctx.board.file);
    if (!look.limit) return look.ignored;
    const { entry, file } = look.limit;
    const until = Math.min(look.limit.until, now + Math.max(0, settings.maxLimitWaitMs - this.waitedMs));
    const { deadline } = this;
    if (until <= now || (deadline && until > deadline.getTime()))
      return `${file}: ${entry.board}'s limit until ${entry.until} is past what this run may wait; the CLI is called`;
    const learnt = `the supervisor of ${entry.board} learnt at ${entry.since} that this account (${entry.account})`;
    const reason =
      until < look.limit.until
        ? `not calling it until ${new Date(until).toISOString()}, when max_limit_wait is used up: ` +
          `${learnt} is limited until ${entry.until}`
        : `not calling it: ${learnt} is limited until then`;
    await this.waitOut(settings, where, {
      now,
      until,
      resetKnown: true,
      cli: entry.cli,
      reason,
      said: `Shared by another supervisor (${file}): ${reason}.`,
      source: { learntFrom: entry.board, learntAt: entry.since, sharedFile: file },
    });
    return undefined;
  }

  /** A run started while an earlier one of this board waited for a usage limit waits for the rest of it. */
  async resume(settings: LimitSettings): Promise<void> {
    const { ctx } = this;
    const known = waitingFile.read(ctx.board.dir);
    // A resident run's wait for a board change ended with that run (this one holds the lock now);
    // another board's limit is looked up again before the next attempt, and capped then.
    if (known?.for === 'board_change' || known?.learntFrom !== undefined) return waitingFile.clear(ctx.board.dir);
    if (known?.for !== 'usage_limit' || known.until === undefined) return;
    const until = Date.parse(known.until);
    const now = ctx.world.clock.now().getTime();
    if (!(until > now)) return waitingFile.clear(ctx.board.dir);
    // Within the margin after the reset: only the margin is left to wait.
    if (until - MARGIN_MS <= now) {
      await sleepUntil(ctx.world, until);
      throwIfStopped(ctx.world.stop);
      return waitingFile.clear(ctx.board.dir);
    }
    const where = { step: 0, role: known.role ?? 'agent', task: known.task ?? '' };
    const failure = { kind: 'usage_limit' as const, cli: known.cli ?? 'the agent', detail: known.reason };
    await this.own(settings, where, { ...failure, resetAt: new Date(until - MARGIN_MS) });
  }

  /** Wait until `wait.until` (waiting.json says so meanwhile) unless that goes past a cap (exit 69); Ctrl-C ends it. */
  async waitOut(settings: LimitSettings, where: WaitPlace, wait: Wait): Promise<void> {
    const { ctx } = this;
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
      ...wait.source,
    };
    waitingFile.write(ctx.board.dir, waiting);
    const cap = this.cap(settings, now, until);
    if (cap) {
      const waited = this.waitedMs > 0 ? ` after waiting ${formatDuration(this.waitedMs)} already` : '';
      ctx.world.log({
        kind: 'Halt',
        agent: where.role,
        task: where.task,
        issue: `Usage limit (${cli}) until ${waiting.until}${waited}, past ${cap.name}: ${reason}`,
        action: 'Stopping (exit 69); the board is unchanged and the next run resumes at this task after the reset',
      });
      throw new LimitWaitError(
        `${where.role}'s ${cli} usage limit ` +
          `${resetKnown ? 'resets' : 'gave no usable reset time; the next try would be'} at ${localStamp(until)} ` +
          `(in ${formatDuration(until - now)}), later than ${cap.words}${waited}. ` +
          `The board is unchanged; run again after ${localStamp(until)} ` +
          `(status --json shows it as waiting.until)${cap.fix}. ${said}`,
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
      ...wait.notes,
      ...wait.source,
    });
    await sleepUntil(ctx.world, until);
    throwIfStopped(ctx.world.stop); // Ctrl-C ends the wait at once
    const waitedMs = ctx.world.clock.now().getTime() - now;
    this.waitedMs += waitedMs;
    waitingFile.clear(ctx.board.dir);
    ctx.events.emit('limit_resumed', { ...where, waitedMs });
  }

  // What a wait until `until` would go past, if anything: max_limit_wait in all, or the run's deadline (--max-time).
  private cap(
    settings: LimitSettings,
    now: number,
    until: number,
  ): { name: string; words: string; fix: string } | undefined {
    const max = formatDuration(settings.maxLimitWaitMs);
    if (this.waitedMs + (until - now) > settings.maxLimitWaitMs)
      return {
        name: `max_limit_wait (${max})`,
        words: `max_limit_wait (${max}) lets this run wait`,
        fix: ', or raise supervisor.max_limit_wait',
      };
    const deadline = this.deadline?.getTime();
    if (deadline !== undefined && until > deadline)
      return {
        name: `the run's time limit (${localStamp(deadline)})`,
        words: `this run's time limit (--max-time or supervisor.max_time) ends it at ${localStamp(deadline)}`,
        fix: '',
      };
    return undefined;
  }
}
