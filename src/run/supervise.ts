import { isFinished, type Board } from '../board/read-board.js';
import { BoardSource } from '../loop/board-source.js';
import type { Capabilities } from '../loop/capability-fanout.js';
import type { LoopResult, RunOptions } from '../loop/context.js';
import { openCapabilities } from './capability-list.js';

/** How a run ended normally, and where; `runId` null when the board had nothing to run. */
export type SuperviseResult = LoopResult & {
  file: string;
  runId: string | null;
  elapsedMs: number;
  current: string | null;
  phase: string | null;
};

/**
 * A run (SPEC §2, §5): the board located and read once; with nothing to run, answered at once —
 * no lock, nothing written, nothing a step needs loaded (start-up: bench/README.md) — else
 * locked and run (open-run.ts) until the Manager says there is no next task, one step with
 * --once, or, while a capability asks, again (--watch). Throws a SupervisorError on every other end.
 */
export async function supervise(options: RunOptions, opened?: Capabilities): Promise<SuperviseResult> {
  const started = performance.now();
  const capabilities = opened ?? (await openCapabilities('run', options));
  const { source, board } = BoardSource.open(options.file);
  const ended = (loop: LoopResult, runId: string | null, now: Board): SuperviseResult => ({
    ...loop,
    file: source.file,
    runId,
    elapsedMs: performance.now() - started,
    current: now.current,
    phase: now.phase ?? null,
  });
  // A resident run takes the lock and waits even on a board with nothing to run yet.
  if (isFinished(board) && !capabilities.resident) return ended({ steps: 0, reason: 'done' }, null, board);
  await capabilities.boardRead(board);
  const [{ openRun }, { superviseBoard }] = await Promise.all([import('./open-run.js'), import('../loop/loop.js')]);
  return openRun({ kind: 'run', options, source, board, capabilities }, async (ctx) =>
    ended(await superviseBoard(ctx), ctx.runId, ctx.board.read()),
  );
}
