import type { BoardSettings } from './read-board.js';
import { InputError } from '../errors.js';
import type { Retention } from '../log/output-store.js';
import { LONGEST_MS, requireDuration } from '../util/duration.js';
import { parseSize } from '../util/size.js';

/** Settings given on the command line; they override the board's `supervisor:` block. */
export interface SettingsFlags {
  maxRetries?: number;
  maxSteps?: number;
  /** Default agent timeout (`--timeout`), replacing `supervisor.timeout`; a role's own `timeout:` still wins. */
  timeoutMs?: number;
  /**
   * Capabilities' keys given by their flags (`--max-cost 5` is `max_cost_usd: 5`), over the board's:
   * each capability's surface.ts says which flag sets which key.
   */
  supervisor?: BoardSettings;
}

/** The core's settings in force for one step (SPEC §1, §4); each capability reads its own from `supervisor`. */
export interface Settings {
  maxRetries: number;
  maxSteps: number;
  maxSameTask: number;
  timeoutMs: number;
  idleTimeoutMs: number | null;
  killGraceMs: number;
  retention: Retention;
  /** After an agent's last retry: halt (exit 3), or hand the Manager an error result for the task. */
  onExhausted: 'halt' | 'manager';
  /**
   * The board's `supervisor:` block with the flags' keys over it: a capability's own keys are read from
   * here by its settings.ts (budget, limits, git…), so that the core names none of them.
   */
  supervisor: BoardSettings;
}

/** Defaults of SPEC §1 and §5, and of the retention limits. */
export const DEFAULTS: Omit<Settings, 'supervisor'> = {
  maxRetries: 3,
  maxSteps: 500,
  maxSameTask: 5,
  timeoutMs: 30 * 60_000,
  idleTimeoutMs: null,
  killGraceMs: 5_000,
  retention: { runs: 20, bytes: 1024 ** 3, attempts: 10_000 },
  onExhausted: 'halt',
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
    // The schema has checked it (kanban.schema.json); the board is validated before it is used.
    onExhausted: (board.on_exhausted as Settings['onExhausted'] | undefined) ?? DEFAULTS.onExhausted,
    supervisor: { ...board, ...flags.supervisor },
  };
}

/**
 * A duration of supervisor: in its range (`longest`, util/duration.ts LONGEST_MS: one timer's by
 * default), or an InputError naming the key; undefined when it is not set. For a capability's settings.ts too.
 */
export function durationSetting(
  board: BoardSettings,
  key: string,
  longest: number = LONGEST_MS.timer,
): number | undefined {
  const value = board[key];
  return value === undefined || value === null
    ? undefined
    : requireDuration(value, `kanban.yaml: supervisor.${key}`, longest);
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
