import { closeSync, constants, fstatSync, ftruncateSync, openSync, readSync, renameSync, writeSync } from 'node:fs';
import path from 'node:path';

/** The kinds of event a run records (see the README, "Events", for each one's fields). */
export type EventType =
  | 'run_started'
  | 'step_started'
  | 'attempt_started'
  | 'attempt_finished'
  | 'retry'
  | 'board_written'
  | 'human_edit_kept'
  | 'done'
  | 'halted'
  | 'interrupted';

/** One machine-readable event, as written to `.kanban-supervisor/events.jsonl` and printed by `--json`. */
export interface SupervisorEvent {
  time: string;
  type: EventType;
  run: string;
  step?: number;
  role?: string;
  task?: string;
  attempt?: number;
  [field: string]: unknown;
}

/** Anything that wants events as they happen (the terminal reporter, `--json`, hooks). */
export type EventListener = (event: SupervisorEvent) => void;

/** The events file of a board's state folder. */
export function eventsFile(stateDir: string): string {
  return path.join(stateDir, 'events.jsonl');
}

/** Where events.jsonl goes when it is full; the history tools read it too. */
export function previousEventsFile(stateDir: string): string {
  return path.join(stateDir, 'events.1.jsonl');
}

// events.jsonl is moved to events.1.jsonl (replacing the one before) past this size, so a
// month-long run keeps at most twice this much history on disk.
export const EVENTS_ROTATE_BYTES = 64 * 1024 * 1024;

/** Appends events to events.jsonl, one whole line each, and hands each to the listeners. */
export class EventLog {
  private fd: number | undefined;
  private size = 0;

  constructor(
    private readonly stateDir: string,
    readonly run: string,
    private readonly listeners: EventListener[] = [],
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /** Record an event: one JSON line, appended before anyone is told of it. */
  emit(type: EventType, fields: Omit<SupervisorEvent, 'time' | 'type' | 'run'> = {}): SupervisorEvent {
    const event = { time: this.clock().toISOString(), type, run: this.run, ...fields } as SupervisorEvent;
    this.append(Buffer.from(`${JSON.stringify(event)}\n`));
    for (const listener of this.listeners) listener(event);
    return event;
  }

  // Sync on purpose: a handful of small lines a step, each on disk before a crash could make
  // it the last thing a person looks for. A line is written whole or not at all.
  private append(line: Buffer): void {
    const fd = this.open();
    try {
      for (let written = 0; written < line.length; ) written += writeSync(fd, line, written);
      this.size += line.length;
    } catch (error) {
      ftruncateSync(fd, this.size); // no torn line for the next run to trip over
      throw error;
    }
    if (this.size >= EVENTS_ROTATE_BYTES) this.rotate();
  }

  private open(): number {
    if (this.fd !== undefined) return this.fd;
    const fd = openSync(eventsFile(this.stateDir), constants.O_RDWR | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW, 0o600);
    this.size = fstatSync(fd).size;
    // A crash mid-write tore the last line: end it, so readers skip it rather than merge it with ours.
    if (this.size > 0 && lastByte(fd, this.size) !== 0x0a) {
      writeSync(fd, '\n');
      this.size++;
    }
    return (this.fd = fd);
  }

  private rotate(): void {
    this.close();
    renameSync(eventsFile(this.stateDir), previousEventsFile(this.stateDir));
  }

  /** Close the events file (a later event opens it again). */
  close(): void {
    if (this.fd === undefined) return;
    closeSync(this.fd);
    this.fd = undefined;
  }
}

function lastByte(fd: number, size: number): number {
  const byte = Buffer.alloc(1);
  readSync(fd, byte, 0, 1, size - 1);
  return byte[0] as number;
}
