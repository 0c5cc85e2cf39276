import { eventTable, type CapabilityEvents } from './capability-events.js';
import { RunFold, type RunRecord } from './fold.js';
import { fieldPeeker, parseEvent } from './parse.js';
import { isManagerTurn, isRunEnd, RUN_END_TYPES, type AttemptRecord, type RunEnd } from './records.js';
import { NewestFirst, withStore } from './event-files.js';

/**
 * How far back `status` reads the history at most: ~50,000 events, some 8,000 steps (weeks of
 * real agents), read and sifted in ~0.1 s. A task not run in that long (or never) makes status
 * read this far and no further, on a history of any size; it then says "no outcome in the last
 * 16 MiB of history", and `report --all` has the rest. 32 MiB measured ~0.05 s more, which the
 * 0.3 s goal for the whole command could not spare on a busy machine.
 */
export const STATUS_WINDOW_BYTES = 16 * 2 ** 20;

/** How much of the history (events.jsonl, then the rotated events.1.jsonl) was read. */
export interface HistoryWindow {
  /** The files' size (0 when there are none). */
  bytes: number;
  /** Bytes read, from the end. */
  read: number;
  /** The most status reads. */
  limit: number;
  /** Whether every event was read: when not, a missing outcome only means none in the last `read` bytes. */
  readAll: boolean;
}

/**
 * The last run as the fold has it (without its attempts and steps),
 * set when it began further back than the part of the history read.
 */
export type LatestRun = Omit<RunRecord, 'attempts' | 'stepRecords'> & { startNotRead?: true };

/** What `status` shows from the history. */
export interface Latest {
  /** The last worker attempt of each task asked about that has one in what was read. */
  attempts: Map<string, AttemptRecord>;
  lastRun?: LatestRun;
  lastHalt?: RunEnd & { run: string };
  window: HistoryWindow;
}

/**
 * `status`'s view of the fold: the history read from its end until it has all status shows —
 * the last run whole (its attempts handed to `lastRunAttempt`), the last run whose last end
 * was not done, each task's last worker attempt — or `windowBytes` were read. A line is parsed only if it may matter,
 * told from a peek at it: most lines of a long history are about tasks already found.
 * `capabilityEvents`: the capabilities' event types, read and folded as each one says.
 */
export function readLatest(
  boardDir: string,
  tasks: readonly string[],
  capabilityEvents: readonly CapabilityEvents[],
  options: { windowBytes?: number; chunkBytes?: number; lastRunAttempt?: (attempt: AttemptRecord) => void } = {},
): Latest {
  const limit = options.windowBytes ?? STATUS_WINDOW_BYTES;
  // The last run's attempts are handed over one by one, not held: that run can be weeks long.
  const table = eventTable(capabilityEvents);
  const fold = new RunFold(table.folds, { attempts: false, steps: false });
  const attempts = new Map<string, AttemptRecord>();
  const wanted = new Set(tasks);
  const peekTask = fieldPeeker('task');
  const peekType = fieldPeeker('type');
  let lastRun: string | undefined;
  let lastRunWhole = false;
  let lastHalt: Latest['lastHalt'];
  const wants = (text: string): boolean => {
    if (!lastRunWhole) return true;
    const type = peekType(text);
    if (type === undefined || (!lastHalt && RUN_END_TYPES.has(type))) return true;
    const task = peekTask(text);
    if (wanted.size === 0) return false;
    return task === undefined ? type === 'attempt_started' || type === 'attempt_finished' : wanted.has(task);
  };
  const window = withStore(boardDir, (files): HistoryWindow => {
    const lines = new NewestFirst(files, { limitBytes: limit, chunkBytes: options.chunkBytes });
    for (const line of lines) {
      if (!wants(line.text)) continue;
      const event = parseEvent(line.text, table.checks);
      if (!event) continue;
      lastRun ??= event.run;
      if (event.run !== lastRun) lastRunWhole = true;
      const record = fold.add(event);
      if (event.type === 'run_started' && event.run === lastRun) lastRunWhole = true;
      if (record && event.run === lastRun) options.lastRunAttempt?.(record);
      if (record && !isManagerTurn(event) && wanted.delete(record.task)) attempts.set(record.task, record);
      const end = isRunEnd(event) ? fold.peek(event.run)?.end : undefined;
      if (!lastHalt && end && end.type !== 'done') lastHalt = { ...end, run: event.run };
      if (lastRunWhole && lastHalt && wanted.size === 0) break;
    }
    return { bytes: lines.bytes, read: lines.read, limit, readAll: lines.reachedStart };
  }) ?? { bytes: 0, read: 0, limit, readAll: true };
  const run = lastRun === undefined ? undefined : fold.peek(lastRun);
  const { attempts: _attempts, stepRecords: _steps, ...shown } = run ?? { attempts: undefined, stepRecords: undefined };
  const latest =
    run && ({ ...shown, ...(!lastRunWhole && !window.readAll && { startNotRead: true as const }) } as LatestRun);
  return { attempts, ...(latest && { lastRun: latest }), ...(lastHalt && { lastHalt }), window };
}
