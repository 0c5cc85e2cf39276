import { eventTable, type CapabilityEvents } from './capability-events.js';
import { RunFold, type RunRecord } from './fold.js';
import { parseEvent } from './parse.js';
import { NewestFirst, withStore } from './event-files.js';

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
 * `report`'s view of the fold: the last `count` runs of the board's history (every run with
 * Infinity), oldest first, or undefined when it has none. The history is read from its end
 * (events.jsonl, then events.1.jsonl) until a line of an older run: memory holds the runs
 * shown, not the files. `capabilityEvents`: the capabilities' event types, read and folded as each one says.
 */
export function readRecentRuns(
  boardDir: string,
  count: number,
  capabilityEvents: readonly CapabilityEvents[],
  options: { chunkBytes?: number } = {},
): RecentRuns | undefined {
  return withStore(boardDir, (files) => {
    // The page shows attempts, not steps: none are kept.
    const table = eventTable(capabilityEvents);
    const fold = new RunFold(table.folds, { steps: false });
    let olderLeftOut = false;
    for (const line of new NewestFirst(files, { chunkBytes: options.chunkBytes })) {
      const event = parseEvent(line.text, table.checks);
      if (!event) continue;
      // Runs do not interleave (one supervisor per board holds the lock): a new run past the
      // count means every event of the runs shown was read.
      if (fold.size === count && !fold.peek(event.run)) {
        olderLeftOut = true;
        break;
      }
      fold.add(event);
    }
    const runs = fold.runs();
    return runs.length > 0 ? { runs, olderLeftOut } : undefined;
  });
}
