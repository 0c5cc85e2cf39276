import { closeSync, fstatSync, openSync, readSync, statSync } from 'node:fs';
import path from 'node:path';
import { InputError } from '../errors.js';
import type { SupervisorEvent } from '../log/events.js';
import { rotatedEvents, type OutputPlace } from './places.js';

/** One attempt of an agent as its events tell it: where it ran, and how it ended if it did. */
export interface FoundAttempt {
  run: string;
  step: number;
  role: string;
  task: string;
  attempt: number;
  of: number;
  /** The Manager's turn of the step (its events also name the done task). */
  manager: boolean;
  started: string;
  /** Its attempt_finished event; absent while it runs, or when the supervisor died during it. */
  finished?: SupervisorEvent;
}

/** Which attempt to find: the newest one that matches every field given. */
export interface AttemptFilter {
  /** A task: its worker's attempts, or with `role` that role's (the Manager's turn after it). */
  task?: string;
  step?: number;
  run?: string;
  role?: string;
  /** Which attempt of the agent run (1 is the first try, 2 the first retry). */
  attempt?: number;
}

/** What the search found, and what it saw on the way, to word a "nothing matches" plainly. */
export interface Search {
  attempt?: FoundAttempt;
  /** The newest run in the log. */
  lastRun?: string;
  /** The steps seen of the run the search was kept to, if it was. */
  steps: number[];
  /** Whether any event was read at all. */
  anyEvents: boolean;
  /** The size of the event log when it was read: an attempt found unfinished ends after it. */
  size: number;
}

/**
 * The newest attempt matching `filter`, reading the event log from its end (then the rotated
 * older file), so that the usual question — the last attempt — reads a few KiB of a log of
 * any size. `--step` without `--run` means a step of the last run.
 */
export function findAttempt(boardDir: string, place: OutputPlace, filter: AttemptFilter): Search {
  const search: Search = { steps: [], anyEvents: false, size: 0 };
  const finished = new Map<string, SupervisorEvent>();
  const task = filter.task === undefined ? undefined : path.posix.normalize(filter.task.replace(/\\/g, '/'));
  let run = filter.run;
  for (const file of [place.events, rotatedEvents(place)]) {
    // Taken before reading: an end written meanwhile is read twice at worst, never missed.
    if (file === place.events) search.size = sizeOf(path.join(boardDir, file));
    for (const line of linesFromEnd(path.join(boardDir, file))) {
      const event = parse(line);
      if (!event) continue;
      search.anyEvents = true;
      search.lastRun ??= event.run;
      if (run === undefined && filter.step !== undefined) run = search.lastRun;
      if (run !== undefined && event.run !== run) continue;
      if (event.type === 'step_started' && run !== undefined && !search.steps.includes(Number(event.step))) search.steps.push(Number(event.step));
      const key = keyOf(event);
      if (event.type === 'attempt_finished') finished.set(key, event);
      if (event.type !== 'attempt_started') continue;
      const manager = event.done_task !== undefined || event.role === 'Manager';
      if (filter.step !== undefined && event.step !== filter.step) continue;
      if (filter.attempt !== undefined && event.attempt !== filter.attempt) continue;
      if (filter.role !== undefined && String(event.role).toLowerCase() !== filter.role.toLowerCase()) continue;
      if (task !== undefined && (event.task !== task || (manager && filter.role === undefined))) continue;
      const found = finished.get(key);
      search.attempt = {
        run: event.run,
        step: Number(event.step),
        role: String(event.role),
        task: String(event.task),
        attempt: Number(event.attempt),
        of: Number(event.of),
        manager,
        started: event.time,
        ...(found && { finished: found }),
      };
      return search;
    }
  }
  return search;
}

/** The pid of the supervisor that made a run: run ids end with it (util/time.ts). */
export function runPid(run: string): number | undefined {
  const pid = /-(\d+)$/.exec(run)?.[1];
  return pid === undefined ? undefined : Number(pid);
}

/** The key that pairs an attempt's started and finished events. */
export function keyOf(event: SupervisorEvent): string {
  return [event.run, event.step, event.role, event.task, event.attempt].join('\0');
}

/** An event from one line of the log, or undefined for a line torn by a crash. */
export function parse(line: string): SupervisorEvent | undefined {
  try {
    const event = JSON.parse(line) as SupervisorEvent;
    return event && typeof event === 'object' && typeof event.type === 'string' && typeof event.run === 'string' ? event : undefined;
  } catch {
    return undefined;
  }
}

const CHUNK = 64 * 1024;

function sizeOf(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

// The lines of a file, last first, read in chunks from its end. Small and private on purpose:
// history/ is getting a shared backwards reader (BackwardLines), which this gives way to then.
function* linesFromEnd(file: string): Generator<string> {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    const shown = path.relative(process.cwd(), file);
    throw new InputError(`${shown}: the event log cannot be read (${(error as Error).message.replace(/^\w+: /, '').replace(/, open .*$/, '')}). Make it readable (chmod u+r ${shown}) and try again.`);
  }
  try {
    const chunk = Buffer.allocUnsafe(CHUNK);
    let pos = fstatSync(fd).size;
    let carry = Buffer.alloc(0);
    while (pos > 0) {
      const length = Math.min(CHUNK, pos);
      pos -= length;
      readSync(fd, chunk, 0, length, pos);
      // Split on the LF byte before decoding, so a character cut by the chunk edge stays whole.
      const bytes = Buffer.concat([chunk.subarray(0, length), carry]);
      let end = bytes.length;
      let nl = bytes.lastIndexOf(0x0a, end - 1);
      while (nl >= 0) {
        if (nl + 1 < end) yield bytes.toString('utf8', nl + 1, end);
        end = nl;
        nl = end > 0 ? bytes.lastIndexOf(0x0a, end - 1) : -1;
      }
      carry = Buffer.from(bytes.subarray(0, end));
    }
    if (carry.length > 0) yield carry.toString('utf8');
  } finally {
    closeSync(fd);
  }
}
