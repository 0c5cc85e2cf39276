import type { BoardSettings } from '../board/read-board.js';
import { durationSetting } from '../board/settings.js';
import { LONGEST_MS } from '../util/duration.js';

/** A batch job's time budget (`supervisor.max_time` or --max-time): the run stops by then (exit 124); null: none. */
export function maxTimeMs(supervisor: BoardSettings): number | null {
  return durationSetting(supervisor, 'max_time', LONGEST_MS.clock) ?? null;
}
