import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import path from 'node:path';
import { eventsFile, type SupervisorEvent } from '../log/events.js';

// Enough for the last ~100 steps of a typical board (a step writes 2–4 KB of events).
const TAIL_BYTES = 256 * 1024;

/**
 * The events in the last `bytes` of a board's events.jsonl, oldest first: the file is read from
 * its end, never whole. A line cut by the start of that window or torn by a crash is skipped; a
 * history that cannot be read is none (the Manager's history is a help, not a condition of the run).
 * Small on purpose: src/history/'s backwards reader can replace it once it lands.
 */
export function tailEvents(boardDir: string, bytes = TAIL_BYTES): SupervisorEvent[] {
  let fd: number;
  try {
    // O_NONBLOCK: a FIFO planted in its place must not hang the run.
    fd = openSync(eventsFile(path.join(boardDir, '.kanban-supervisor')), constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    return [];
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) return [];
    const start = Math.max(0, stat.size - bytes);
    const buffer = Buffer.alloc(stat.size - start);
    const got = readSync(fd, buffer, 0, buffer.length, start);
    const lines = buffer.subarray(0, got).toString('utf8').split('\n');
    if (start > 0) lines.shift(); // the window began mid-line
    return lines.flatMap((line) => parseEvent(line));
  } catch {
    return [];
  } finally {
    closeSync(fd);
  }
}

function parseEvent(line: string): SupervisorEvent[] {
  if (!line.trim()) return [];
  try {
    const event = JSON.parse(line) as SupervisorEvent;
    return event && typeof event === 'object' && typeof event.type === 'string' && typeof event.run === 'string' ? [event] : [];
  } catch {
    return []; // torn by a crash
  }
}
