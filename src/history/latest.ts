import { withHistory } from './events-file.js';
import { feed } from './finder.js';
import { LastAttemptFinder } from './last-attempts.js';
import { LastHaltFinder } from './last-halt.js';
import { LastRunFinder, type LastRun } from './last-run.js';
import { BackwardLines } from './read-backwards.js';
import type { AttemptRecord, RunEnd } from './records.js';

/**
 * How far back `status` reads events.jsonl at most: ~50,000 events, some 8,000 steps (weeks of
 * real agents), read and sifted in ~0.1 s. A task not run in that long (or never) makes status
 * read this far and no further, on a history of any size; it then says "no outcome in the last
 * 16 MiB of history", and `report --all` has the rest. 32 MiB measured ~0.05 s more, which the
 * 0.3 s goal for the whole command could not spare on a busy machine.
 */
export const STATUS_WINDOW_BYTES = 16 * 2 ** 20;

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
