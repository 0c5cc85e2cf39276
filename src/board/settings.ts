import type { BoardSettings } from './read-board.js';
import { InputError } from '../errors.js';
import type { Retention } from '../log/output-store.js';
import { requireDuration } from '../util/duration.js';
import { parseSize } from '../util/size.js';
import { notifyProblem } from '../notify/target.js';

/** Settings given on the command line; they override the board's `supervisor:` block. */
export interface SettingsFlags {
  maxRetries?: number;
  maxSteps?: number;
  /** Default agent timeout (`--timeout`), replacing `supervisor.timeout`; a role's own `timeout:` still wins. */
  timeoutMs?: number;
  /** `--max-cost USD`, replacing `supervisor.max_cost_usd`. */
  maxCostUsd?: number;
  /** `--max-time DUR`, replacing `supervisor.max_time`. */
  maxTimeMs?: number;
  /** `--notify URL` (repeatable), added to `supervisor.notify`. */
  notify?: string[];
}

/** The settings in force for one step. */
export interface Settings {
  maxRetries: number;
  maxSteps: number;
  maxSameTask: number;
  timeoutMs: number;
  idleTimeoutMs: number | null;
  killGraceMs: number;
  retention: Retention;
  /** Budgets: the run stops (exit 5) after the attempt that reaches one. */
  maxCostUsd: number | null;
  maxTokens: number | null;
  /** Usage limits: the longest wait in all, and the first wait when no reset time is given. */
  maxLimitWaitMs: number;
  limitWaitMs: number;
  /** Transient service errors: how many re-runs, and the first backoff. */
  transientRetries: number;
  transientBackoffMs: number;
  /** After an agent's last retry: halt (exit 3), or hand the Manager an error result for the task. */
  onExhausted: 'halt' | 'manager';
  /** Roles run after every N completed steps, in this order (`supervisor.periodic`). */
  periodic: PeriodicRole[];
  /** With --watch: how often a waiting supervisor compares the board's files itself. */
  watchPollMs: number;
  /** A batch job's time budget: the run stops by then (exit 124); null: none. */
  maxTimeMs: number | null;
  /**
   * The folder of account limits shared with other supervisors
   * (`supervisor.shared_limits`); null: the user's state folder.
   */
  sharedLimits: string | null;
  /** One commit per applied step (`supervisor.git_commit`), and how long one git command may run. */
  gitCommit: boolean;
  gitTimeoutMs: number;
  /**
   * Notifications (SPEC §5c, "Heard"): where they go, `supervisor.notify`
   * then `--notify`; a usage-limit wait longer than notifyWaitMs is told.
   */
  notify: string[];
  notifyWaitMs: number;
}

/** One entry of `supervisor.periodic`: run `role` after every `every` completed steps. */
export interface PeriodicRole {
  role: string;
  every: number;
}

/** Defaults of SPEC §1 and §5, and of the retention limits. */
export const DEFAULTS: Settings = {
  maxRetries: 3,
  maxSteps: 500,
  maxSameTask: 5,
  timeoutMs: 30 * 60_000,
  idleTimeoutMs: null,
  killGraceMs: 5_000,
  retention: { runs: 20, bytes: 1024 ** 3, attempts: 10_000 },
  maxCostUsd: null,
  maxTokens: null,
  maxLimitWaitMs: 6 * 3_600_000,
  limitWaitMs: 5 * 60_000,
  transientRetries: 5,
  transientBackoffMs: 30_000,
  onExhausted: 'halt',
  periodic: [],
  watchPollMs: 5_000,
  maxTimeMs: null,
  sharedLimits: null,
  gitCommit: false,
  gitTimeoutMs: 5 * 60_000,
  notify: [],
  notifyWaitMs: 15 * 60_000,
};

/** Flags over board settings over defaults (pure). A malformed duration or size is an InputError naming the key. */
export function resolveSettings(board: BoardSettings, flags: SettingsFlags): Settings {
  const duration = (key: string) => durationSetting(board, key);
  const number = (key: string) => board[key] as number | undefined;
  return {
    maxRetries: flags.maxRetries ?? number('max_retries') ?? DEFAULTS.maxRetries,
    maxSteps: flags.maxSteps ?? number('max_steps') ?? DEFAULTS.maxSteps,
    maxSameTask: number('max_same_task') ?? DEFAULTS.maxSameTask,
    timeoutMs: flags.timeoutMs ?? duration('timeout') ?? DEFAULTS.timeoutMs,
    idleTimeoutMs: duration('idle_timeout') ?? DEFAULTS.idleTimeoutMs,
    killGraceMs: duration('kill_grace') ?? DEFAULTS.killGraceMs,
    retention: {
      runs: number('keep_runs') ?? DEFAULTS.retention.runs,
      bytes: parsed(board.keep_bytes, 'keep_bytes', parseSize, 'a size like 500MB or 2GiB') ?? DEFAULTS.retention.bytes,
      attempts: number('keep_attempts') ?? DEFAULTS.retention.attempts,
    },
    maxCostUsd: flags.maxCostUsd ?? number('max_cost_usd') ?? DEFAULTS.maxCostUsd,
    maxTokens: number('max_tokens') ?? DEFAULTS.maxTokens,
    maxLimitWaitMs: duration('max_limit_wait') ?? DEFAULTS.maxLimitWaitMs,
    limitWaitMs: duration('limit_wait') ?? DEFAULTS.limitWaitMs,
    transientRetries: number('transient_retries') ?? DEFAULTS.transientRetries,
    transientBackoffMs: duration('transient_backoff') ?? DEFAULTS.transientBackoffMs,
    // The schema has checked both (kanban.schema.json); the board is validated before it is used.
    onExhausted: (board.on_exhausted as Settings['onExhausted'] | undefined) ?? DEFAULTS.onExhausted,
    periodic: (board.periodic as PeriodicRole[] | undefined) ?? DEFAULTS.periodic,
    watchPollMs: duration('watch_poll') ?? DEFAULTS.watchPollMs,
    maxTimeMs: flags.maxTimeMs ?? duration('max_time') ?? DEFAULTS.maxTimeMs,
    sharedLimits: (board.shared_limits as string | undefined) ?? DEFAULTS.sharedLimits,
    gitCommit: (board.git_commit as boolean | undefined) ?? DEFAULTS.gitCommit,
    gitTimeoutMs: duration('git_timeout') ?? DEFAULTS.gitTimeoutMs,
    ...notifySettings(board, flags),
  };
}

/**
 * Where notifications go and the wait worth telling of (pure); a malformed
 * entry of supervisor.notify is an InputError naming it and the fix.
 */
export function notifySettings(board: BoardSettings, flags: SettingsFlags): Pick<Settings, 'notify' | 'notifyWaitMs'> {
  const listed =
    board.notify === undefined || board.notify === null
      ? []
      : Array.isArray(board.notify)
        ? (board.notify as unknown[])
        : [board.notify];
  listed.forEach((entry, i) => {
    const problem = notifyProblem(entry, `kanban.yaml: supervisor.notify[${i}]`);
    if (problem) throw new InputError(problem);
  });
  return {
    notify: [...(listed as string[]), ...(flags.notify ?? [])],
    notifyWaitMs: durationSetting(board, 'notify_wait') ?? DEFAULTS.notifyWaitMs,
  };
}

// A duration of supervisor: in its range (util/duration.ts), or an InputError naming the key.
function durationSetting(board: BoardSettings, key: string): number | undefined {
  const value = board[key];
  return value === undefined || value === null
    ? undefined
    : requireDuration(value, `kanban.yaml: supervisor.${key}`, key);
}

function parsed(
  value: unknown,
  key: string,
  parse: (value: unknown) => number | null,
  what: string,
): number | undefined {
  if (value === undefined || value === null) return undefined;
  const result = parse(value);
  if (result === null)
    throw new InputError(`kanban.yaml: supervisor.${key} must be ${what} (got ${JSON.stringify(value)}).`);
  return result;
}
