import { lstatSync, renameSync } from 'node:fs';
import path from 'node:path';
import { LineLog } from '../fs/line-log.js';
import { openRealDir } from '../fs/real-dir.js';
import { maskDeep } from '../util/secrets.js';
import type { CapabilityEvents } from './capability-events.js';
import {
  EVENTS,
  rotatedFile,
  type EventFields,
  type EventListener,
  type EventOf,
  type EventType,
} from '../event-types.js';

// events.jsonl is moved to events.1.jsonl (replacing the one before) past this size, so a
// month-long run keeps at most twice this much history on disk.
const EVENTS_ROTATE_BYTES = 64 * 1024 * 1024;

/** Appends events to events.jsonl, one whole line each, and hands each to the listeners. */
export class EventLog {
  private log: LineLog | undefined;
  private bytes = 0;

  constructor(
    private readonly boardDir: string,
    readonly run: string,
    /** The event types the capabilities add, and how each is read and shown: for a reader of this board's events. */
    readonly capabilityEvents: readonly CapabilityEvents[],
    private readonly listeners: EventListener[] = [],
    private readonly clock: () => Date = () => new Date(),
    /** The board-relative events file: EVENTS, or another for events kept apart (`try`). */
    private readonly file = EVENTS,
    /** The run's secret values (board/secret-values.ts): masked in every event, and in the Log by its writers. */
    readonly secrets: readonly string[] = [],
  ) {}

  /** Record an event: one JSON line, appended before anyone is told of it. */
  emit<T extends EventType>(type: T, fields: EventFields[T]): void {
    // Whatever an event carries (a command, a message, an issue), a secret in it is masked before
    // the file, the console or the report sees it (util/secrets.ts), in every field: a value is
    // looked for in the fields, not the line, where JSON may have escaped it (or the escape
    // sequence splitting it). Masking is linear in the text; the fields are bounded where made.
    // The one place an event is made: type and fields as EventFields pairs them (the compiler cannot follow T through).
    const event = maskDeep(
      { time: this.clock().toISOString(), type, run: this.run, ...fields } as EventOf<T>,
      this.secrets,
    );
    const line = JSON.stringify(event);
    // Sync on purpose: a handful of small lines a step, each on disk before a crash could make
    // it the last thing a person looks for. The file stays open: it is written every step.
    if (!this.log) {
      this.log = LineLog.open(this.boardDir, this.file);
      this.bytes = lstatSync(path.join(this.boardDir, this.file)).size;
    }
    this.log.append(line);
    this.bytes += line.length + 1;
    if (this.bytes >= EVENTS_ROTATE_BYTES) this.rotate();
    for (const listener of this.listeners) listener(event);
  }

  private rotate(): void {
    this.close();
    this.bytes = 0;
    const state = openRealDir(this.boardDir, path.posix.dirname(this.file));
    const name = path.posix.basename(this.file);
    try {
      renameSync(state.at(name), state.at(rotatedFile(name)));
    } finally {
      state.close();
    }
  }

  /** Close the events file (a later event opens it again). */
  close(): void {
    this.log?.close();
    this.log = undefined;
  }
}
