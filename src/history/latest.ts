import { withHistory } from './events-file.js';
import { feed } from './finder.js';
import { LastAttemptFinder } from './last-attempts.js';
import { LastHaltFinder } from './last-halt.js';
import { LastRunFinder, type LastRun } from './last-run.js';
import { BackwardLines } from './read-backwards.js';
import type { AttemptRecord, RunEnd } from './records.js';

/**
 * How far back `status` reads events.jsonl at most: ~100,000 events, some 16,000 steps, read
 * and parsed in ~0.15 s. Only a task that has not run in that long makes status read it all;
 * the bound keeps it quick on a history of any size, and status says when it was reached.
 */
export const STATUS_WINDOW_BYTES = 32 * 2 ** 20;

/** How much of events.jsonl was read. */
export interface HistoryWindow {
  /** The file's size (0 when there is none). */
  bytes: number;
  /** Bytes read, from the end. */
  read: number;
  /** The most status reads. */
  limit: number;
  /** Whether every event was read: when not, a missing outcome only means none in the last `read` bytes. */
  readAll: boolean;
}

/** What `status` shows from the history. */
export interface Latest {
  /** The last worker attempt of each task asked about that has one in what was read. */
  attempts: Map<string, AttemptRecord>;
  lastRun?: LastRun;
  lastHalt?: RunEnd & { run: string };
  window: HistoryWindow;
}

/** Read the board's history from its end until `status` has all it shows, or `windowBytes` were read. */
export function readLatest(boardDir: string, tasks: readonly string[], options: { windowBytes?: number; chunkBytes?: number } = {}): Latest {
  const limit = options.windowBytes ?? STATUS_WINDOW_BYTES;
  const lastRun = new LastRunFinder();
  const lastHalt = new LastHaltFinder();
  const attempts = new LastAttemptFinder(tasks);
  const window = withHistory(boardDir, (history): HistoryWindow => {
    const lines = new BackwardLines(history.fd, history.size, { limitBytes: limit, chunkBytes: options.chunkBytes });
    feed(lines, [lastRun, lastHalt, attempts]);
    return { bytes: history.size, read: lines.read, limit, readAll: lines.reachedStart };
  }) ?? { bytes: 0, read: 0, limit, readAll: true };
  const run = lastRun.run && !lastRun.found && !window.readAll ? { ...lastRun.run, startNotRead: true as const } : lastRun.run;
  return { attempts: attempts.attempts, ...(run && { lastRun: run }), ...(lastHalt.halt && { lastHalt: lastHalt.halt }), window };
}
