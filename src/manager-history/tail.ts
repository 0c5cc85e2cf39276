import type { SupervisorEvent } from '../log/events.js';
import { withHistory } from '../history/events-file.js';
import { parseEvents } from '../history/parse-event.js';
import { BackwardLines } from '../history/read-backwards.js';

// Enough for the last ~100 steps of a typical board (a step writes 2–4 KB of events).
const TAIL_BYTES = 256 * 1024;

/**
 * The events in the last `bytes` of a board's events.jsonl, oldest first: the file is read from
 * its end, never whole. A line cut by the start of that window or torn by a crash is skipped; a
 * history that cannot be read is none (the Manager's history is a help, not a condition of the run).
 */
export function tailEvents(boardDir: string, bytes = TAIL_BYTES): SupervisorEvent[] {
  try {
    return withHistory(boardDir, (history) => [...parseEvents(new BackwardLines(history.fd, history.size, { limitBytes: bytes }))].reverse()) ?? [];
  } catch {
    return [];
  }
}
