/**
 * Typed errors. Each carries the exit code SPEC §6 gives it; only cli.ts prints
 * them and exits, so every command stays callable (and testable) without argv.
 */

/**
 * Every exit code (SPEC §6 and the outcomes it leaves to us): its name, its outcome (hooks'
 * KANBAN_OUTCOME, events, --json) and what a scheduler does next (docs/exit-codes.md, which the
 * recipes follow too: test/unit/exit-codes.test.ts checks them against this table).
 */
export const EXIT_CODES = [
  { code: 0, name: 'done', outcome: 'done', next: 'done' },
  { code: 1, name: 'internal', outcome: 'internal_error', next: 'person' },
  { code: 2, name: 'badInput', outcome: 'bad_input', next: 'person' },
  { code: 3, name: 'retriesExhausted', outcome: 'retries_exhausted', next: 'person' },
  { code: 4, name: 'haltedForHuman', outcome: 'halted_for_human', next: 'person' },
  { code: 5, name: 'guard', outcome: 'guard_stop', next: 'person' },
  { code: 6, name: 'commitFailed', outcome: 'commit_failed', next: 'person' },
  { code: 69, name: 'limitWait', outcome: 'limit_wait', next: 'later' },
  { code: 73, name: 'unwritable', outcome: 'unwritable', next: 'person' },
  { code: 74, name: 'outputClosed', outcome: 'output_closed', next: 'later' },
  { code: 75, name: 'locked', outcome: 'locked', next: 'later' },
  { code: 124, name: 'timeLimit', outcome: 'time_limit', next: 'later' },
  { code: 129, name: 'sighup', outcome: 'interrupted', next: 'again' },
  { code: 130, name: 'sigint', outcome: 'interrupted', next: 'again' },
  { code: 143, name: 'sigterm', outcome: 'interrupted', next: 'again' },
] as const;

type ExitRow = (typeof EXIT_CODES)[number];

/** Each exit code by its name: `ExitCode.limitWait` is 69. */
export const ExitCode = Object.fromEntries(EXIT_CODES.map((row) => [row.name, row.code])) as {
  readonly [Row in ExitRow as Row['name']]: Row['code'];
};

/** Base class: a failure the user should see as one plain message, never a stack trace. */
export class SupervisorError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** Bad board, task, role or command-line input (exit 2). */
export class InputError extends SupervisorError {
  constructor(message: string) {
    super(message, ExitCode.badInput);
  }
}

/** An agent never produced a valid reply within max_retries (exit 3). */
export class RetriesExhaustedError extends SupervisorError {
  constructor(message: string) {
    super(message, ExitCode.retriesExhausted);
  }
}

/** The Manager replied with a status other than ok (exit 4). */
export class HaltedForHumanError extends SupervisorError {
  constructor(message: string) {
    super(message, ExitCode.haltedForHuman);
  }
}

/** A loop guard (max_steps, max_same_task) or a budget (max_cost_usd, max_tokens) stopped the run (exit 5). */
export class GuardError extends SupervisorError {
  constructor(message: string) {
    super(message, ExitCode.guard);
  }
}

/**
 * A step's commit failed (exit 6): a pre-commit or commit-msg
 * hook refused it, or git failed; the board stays as written.
 */
export class CommitFailedError extends SupervisorError {
  constructor(message: string) {
    super(message, ExitCode.commitFailed);
  }
}

/** An agent's usage limit resets later than the run may wait (exit 69); `resetAt` says when to try again. */
export class LimitWaitError extends SupervisorError {
  constructor(
    message: string,
    readonly resetAt: Date | null,
  ) {
    super(message, ExitCode.limitWait);
  }
}

/** The run reached --max-time / supervisor.max_time (exit 124): stopped like an interrupt, the board unchanged. */
export class TimeLimitError extends SupervisorError {
  constructor(message: string) {
    super(message, ExitCode.timeLimit);
  }
}

/** The board folder or a file in it cannot be written safely (exit 73): the message names the path and the cause. */
export class UnwritableError extends SupervisorError {
  constructor(message: string) {
    super(message, ExitCode.unwritable);
  }
}

/**
 * Something planted where the supervisor writes — a symlink, a FIFO, a second hard link, a swapped folder (exit 73).
 */
export class UnsafePathError extends UnwritableError {}

/** stdout or stderr was closed under the supervisor (exit 74): it stopped its agent and wrote nothing more. */
export class OutputClosedError extends SupervisorError {
  constructor(message: string) {
    super(message, ExitCode.outputClosed);
  }
}

/** Another supervisor holds the board, or the lock was lost mid-run (exit 75). */
export class BoardLockedError extends SupervisorError {
  constructor(message: string) {
    super(message, ExitCode.locked);
  }
}

/** The supervisor was stopped by a signal (exit 128 + signal number). */
export class InterruptedError extends SupervisorError {
  constructor(
    message: string,
    readonly signal: NodeJS.Signals,
  ) {
    super(message, signalExitCode(signal));
  }
}

/** A bug in kanban-supervisor itself (exit 1): the message says so and how to report it. */
export class InternalError extends SupervisorError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, ExitCode.internal);
    if (options?.cause !== undefined) this.cause = options.cause;
  }
}

/** How a run ended, as hooks (`KANBAN_OUTCOME`), events and `--json` name it ('once': exit 0 after --once). */
export type OutcomeKind = ExitRow['outcome'] | 'once';

/**
 * Every outcome in words, in one table: `short` where a line names it (a resident run's wait),
 * `long` where status tells how a run ended and what to do next.
 */
export const OUTCOME_WORDS: Record<OutcomeKind, { short: string; long: string }> = {
  done: { short: 'done', long: 'done' },
  once: { short: 'one step done', long: 'one step done (--once)' },
  halted_for_human: {
    short: 'halted for a person',
    long:
      'halted for a person: the Manager asked for one. ' +
      'Answer it (edit the task file or kanban.yaml), then run again',
  },
  retries_exhausted: {
    short: 'retries exhausted',
    long: 'stopped: an agent gave no valid reply after every retry. Fix the agent or its role file, then run again',
  },
  guard_stop: { short: 'stopped by a guard', long: 'stopped by a loop guard or a budget' },
  commit_failed: {
    short: 'commit failed',
    long:
      "stopped: the step's commit failed (a git hook refused it, or git failed); " +
      "the board is as the step wrote it. Fix what git says, commit the step's changes yourself, then run again",
  },
  limit_wait: {
    short: 'usage limit',
    long: "stopped: an agent's usage limit resets later than max_limit_wait allows. Run again after the reset",
  },
  bad_input: {
    short: 'stopped by a problem',
    long: "stopped: a board, task or role file (or an agent's login) needs fixing. See `validate`, then run again",
  },
  time_limit: {
    short: 'time limit',
    long: 'stopped at its time limit (--max-time or supervisor.max_time). Run again to resume at the current task',
  },
  unwritable: {
    short: 'board not writable',
    long: 'stopped: the board folder could not be written. Fix it, then run again',
  },
  output_closed: {
    short: 'output closed',
    long: "stopped: the supervisor's output was closed (a pipe or terminal went away). Run again",
  },
  locked: { short: 'locked', long: 'stopped: another supervisor held the board' },
  interrupted: {
    short: 'interrupted',
    long: 'interrupted (Ctrl-C, SIGTERM or a closed terminal). Run again to resume at the current task',
  },
  internal_error: { short: 'a bug', long: 'stopped by a bug in kanban-supervisor: please report it with this status' },
};

/** Whether a word (an event's `outcome`, say) is an outcome kind. */
export function isOutcomeKind(word: string): word is OutcomeKind {
  return Object.hasOwn(OUTCOME_WORDS, word);
}

/** The outcome kind of an exit code. */
export function outcomeKind(exitCode: number): OutcomeKind {
  return EXIT_CODES.find((row) => row.code === exitCode)?.outcome ?? 'internal_error';
}

/** 128 + the signal's number, as shells report it. */
export function signalExitCode(signal: NodeJS.Signals): number {
  const codes: Partial<Record<NodeJS.Signals, number>> = {
    SIGHUP: ExitCode.sighup,
    SIGINT: ExitCode.sigint,
    SIGTERM: ExitCode.sigterm,
  };
  return codes[signal] ?? ExitCode.internal;
}
