import type { BoardSettings } from '../board/read-board.js';
import { durationSetting } from '../board/settings.js';
import { LONGEST_MS } from '../util/duration.js';
import { InputError } from '../errors.js';
import { notifyProblem } from '../notify/target.js';

/**
 * Notifications (SPEC §5c, "Heard"): where they go, `supervisor.notify` then `--notify`; a
 * usage-limit wait longer than notifyWaitMs is told.
 */
export interface NotifySettings {
  notify: string[];
  notifyWaitMs: number;
}

/**
 * Where notifications go and the wait worth telling of (pure); a malformed entry of
 * supervisor.notify is an InputError naming it and the fix. `flags`: the --notify entries.
 */
export function notifySettings(board: BoardSettings, flags: { notify?: readonly string[] } = {}): NotifySettings {
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
    notifyWaitMs: durationSetting(board, 'notify_wait', LONGEST_MS.clock) ?? 15 * 60_000,
  };
}

/** The --notify entries of a command line. */
export function notifyFlags(flags: Record<string, unknown>): string[] {
  return Array.isArray(flags.notify) ? (flags.notify as string[]) : [];
}
