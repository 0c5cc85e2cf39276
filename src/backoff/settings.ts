import type { BoardSettings } from '../board/read-board.js';
import { durationSetting } from '../board/settings.js';

/** Transient service errors: how many re-runs per agent run, and the first backoff (it doubles). */
export interface BackoffSettings {
  transientRetries: number;
  transientBackoffMs: number;
}

/** `supervisor.transient_retries` and `transient_backoff` (pure); a malformed duration is an InputError naming it. */
export function backoffSettings(supervisor: BoardSettings): BackoffSettings {
  return {
    transientRetries: (supervisor.transient_retries as number | undefined) ?? 5,
    transientBackoffMs: durationSetting(supervisor, 'transient_backoff') ?? 30_000,
  };
}
