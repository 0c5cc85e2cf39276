import { boardOf, isFinished, readBoard, readBoardSeen, type WrittenText } from '../board/read.js';
import { InputError } from '../errors.js';
import { superviseBoard, type LoopResult } from '../loop/loop.js';
import { resumeKnownWait } from '../loop/not-format.js';
import { resolveSettings } from '../board/settings.js';
import { realBoardPath } from '../board/locate.js';
import { withRun } from './harness.js';
import type { RunOptions } from './options.js';
import { residentRun } from './watch/resident.js';
import { fsDirWatcher } from './watch/watcher.js';

/** How a run ended normally, and where. */
export type SuperviseResult = LoopResult & {
  file: string;
  runId: string | null;
  elapsedMs: number;
  current: string | null;
  phase: string | null;
};

/**
 * Run a board until the Manager says there is no next task (or one step with --once): open the
 * run (harness.ts: check, lock, take over from a crashed run), resume a usage-limit wait a
 * crashed run left, then loop. Throws a SupervisorError on every other outcome. A board with
 * nothing to run is answered without locking or writing. With `watch`, it stays resident
 * instead of ending (watch/resident.ts) until it is stopped.
 */
export async function supervise(options: RunOptions): Promise<SuperviseResult> {
  const started = performance.now();
  if (options.watch && options.once)
    throw new InputError(
      '--watch and --once cannot be used together: --watch keeps running after the board is done, --once stops after one step. Pass one of them.',
    );
  const file = realBoardPath(options.file);
  const ended = (loop: LoopResult, runId: string | null, now = readBoard(file)): SuperviseResult => ({
    ...loop,
    file,
    runId,
    elapsedMs: performance.now() - started,
    current: now.current,
    phase: now.phase ?? null,
  });
  const seen: WrittenText = options.seen ?? readBoardSeen(file);
  // A resident run takes the lock and waits even on a board with nothing to run yet.
  const first = boardOf(file, seen.text, seen);
  if (!options.watch && isFinished(first)) return ended({ steps: 0, reason: 'done' }, null, first);
  return withRun('run', { ...options, file, seen }, async ({ ctx, board }) => {
    await resumeKnownWait(ctx, resolveSettings(board.settings, options));
    const result = options.watch
      ? await residentRun(ctx, { watcher: options.watcher ?? fsDirWatcher })
      : await superviseBoard(ctx, undefined, seen);
    return ended(result, ctx.runId);
  });
}
