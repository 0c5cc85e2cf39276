import type { BoardSettings } from '../board/read-board.js';
import { durationSetting } from '../board/settings.js';
import { LONGEST_MS } from '../util/duration.js';

/**
 * Usage limits: the longest wait in all, the first wait when no reset time is given, and where
 * shared ones are kept.
 */
export interface LimitSettings {
  maxLimitWaitMs: number;
  limitWaitMs: number;
  /** The folder of limits shared with other supervisors (`supervisor.shared_limits`); null: the user's state folder. */
  sharedLimits: string | null;
}

/** `supervisor.max_limit_wait`, `limit_wait` and `shared_limits` (pure); a malformed duration is an InputError. */
export function limitSettings(supervisor: BoardSettings): LimitSettings {
  return {
    maxLimitWaitMs: durationSetting(supervisor, 'max_limit_wait', LONGEST_MS.clock) ?? 6 * 3_600_000,
    limitWaitMs: durationSetting(supervisor, 'limit_wait', LONGEST_MS.clock) ?? 5 * 60_000,
    sharedLimits: (supervisor.shared_limits as string | undefined) ?? null,
  };
}
