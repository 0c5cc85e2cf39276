import type { BoardSettings } from '../board/read-board.js';
import { durationSetting } from '../board/settings.js';

/** With --watch: how often a waiting supervisor compares the board's files itself (`supervisor.watch_poll`). */
export function watchPollMs(supervisor: BoardSettings): number {
  return durationSetting(supervisor, 'watch_poll') ?? 5_000;
}
