import { withHistory, type HistoryFile } from './events-file.js';
import { fieldPeeker, parseEvent, parseEvents } from './parse-event.js';
import { BackwardLines } from './read-backwards.js';
import { forwardLines } from './read-forwards.js';
import { buildHistory, type RunRecord } from './runs.js';

/**
 * How many runs `report` shows unless told otherwise: enough to compare today's runs with the
 * last few, few enough that the page stays quick to make and to open on a long history.
 */
export const REPORT_RUNS = 10;

/** The runs a report shows, and whether older ones were left out. */
export interface RecentRuns {
  runs: RunRecord[];
  /** Runs older than these exist in the history and are not in `runs`. */
  olderLeftOut: boolean;
}

/**
 * The last `count` runs of the board's history (every run with Infinity), or undefined when it
 * has none. Streams the file: a backward read finds where the first of those runs starts,
 * a forward read from there builds them, so memory holds the runs shown, not the file.
 */
export function readRecentRuns(boardDir: string, count: number, options: { chunkBytes?: number } = {}): RecentRuns | undefined {
  return withHistory(boardDir, (history) => {
    const from = count === Infinity ? { offset: 0, olderLeftOut: false } : startOfLastRuns(history, count, options.chunkBytes);
    const runs = buildHistory(parseEvents(forwardLines(history.fd, history.size, from.offset, { chunkBytes: options.chunkBytes })));
    return runs.length > 0 ? { runs, olderLeftOut: from.olderLeftOut } : undefined;
  });
}

// Runs do not interleave (one supervisor per board holds the lock), so reading back until a
// line of the (count + 1)-th run finds where the last `count` runs begin: the line after it.
function startOfLastRuns(history: HistoryFile, count: number, chunkBytes: number | undefined): { offset: number; olderLeftOut: boolean } {
  const seen = new Set<string>();
  const peekRun = fieldPeeker('run');
  let offset = history.size;
  for (const line of new BackwardLines(history.fd, history.size, { chunkBytes })) {
    // Only the run matters here: peeked, and parsed only when unsure or when a torn line
    // may hold a second event (the forward read parses every line anyway).
    const run = (line.text.includes('{"time":', 1) ? undefined : peekRun(line.text)) ?? parseEvent(line.text)?.run;
    if (run === undefined) continue;
    if (!seen.has(run)) {
      if (seen.size === count) return { offset, olderLeftOut: true };
      seen.add(run);
    }
    offset = line.start;
  }
  return { offset: 0, olderLeftOut: false };
}
