import type { BoardSettings } from './board/board.js';
import { requireDuration } from './util/duration.js';

/** Settings given on the command line; they override the board's `supervisor:` block. */
export interface SettingsFlags {
  maxRetries?: number;
  maxSteps?: number;
  /** Default agent timeout (`--timeout`), replacing `supervisor.timeout`; a role's own `timeout:` still wins. */
  timeoutMs?: number;
}

/** The settings in force for one step. */
export interface Settings {
  maxRetries: number;
  maxSteps: number;
  maxSameTask: number;
  timeoutMs: number;
  idleTimeoutMs: number | null;
  killGraceMs: number;
}

/** Defaults of SPEC §1 and §5. */
export const DEFAULTS: Settings = {
  maxRetries: 3,
  maxSteps: 500,
  maxSameTask: 5,
  timeoutMs: 30 * 60_000,
  idleTimeoutMs: null,
  killGraceMs: 5_000,
};

/** Flags over board settings over defaults. */
export function resolveSettings(board: BoardSettings, flags: SettingsFlags): Settings {
  const duration = (value: unknown, key: string) => (value === undefined ? undefined : requireDuration(value, `kanban.yaml: /supervisor/${key}`));
  return {
    maxRetries: flags.maxRetries ?? board.max_retries ?? DEFAULTS.maxRetries,
    maxSteps: flags.maxSteps ?? board.max_steps ?? DEFAULTS.maxSteps,
    maxSameTask: board.max_same_task ?? DEFAULTS.maxSameTask,
    timeoutMs: flags.timeoutMs ?? duration(board.timeout, 'timeout') ?? DEFAULTS.timeoutMs,
    idleTimeoutMs: duration(board.idle_timeout, 'idle_timeout') ?? DEFAULTS.idleTimeoutMs,
    killGraceMs: duration(board.kill_grace, 'kill_grace') ?? DEFAULTS.killGraceMs,
  };
}
