import type { BoardSettings } from '../board/read-board.js';
import { durationSetting } from '../board/settings.js';

/** One commit per applied step (`supervisor.git_commit`), and how long one git command may run (`git_timeout`). */
export interface GitSettings {
  gitCommit: boolean;
  gitTimeoutMs: number;
}

/** The git settings as set (pure); a malformed git_timeout is an InputError naming it. */
export function gitSettings(supervisor: BoardSettings): GitSettings {
  return {
    gitCommit: (supervisor.git_commit as boolean | undefined) ?? false,
    gitTimeoutMs: durationSetting(supervisor, 'git_timeout') ?? 5 * 60_000,
  };
}
