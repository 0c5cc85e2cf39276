import { appendFileSync, closeSync, mkdirSync, openSync } from 'node:fs';
import path from 'node:path';

/** One machine-readable event, as written to `.kanban-supervisor/events.jsonl` and printed by `--json`. */
export interface SupervisorEvent {
  time: string;
  type:
    | 'run_started'
    | 'step_started'
    | 'attempt_started'
    | 'attempt_finished'
    | 'retry'
    | 'reply_accepted'
    | 'board_written'
    | 'human_edit_kept'
    | 'done'
    | 'halted'
    | 'interrupted';
  run: string;
  step?: number;
  role?: string;
  task?: string;
  attempt?: number;
  [field: string]: unknown;
}

/** Anything that wants events as they happen (the terminal reporter, `--json`). */
export type EventListener = (event: SupervisorEvent) => void;

/** The events file of a board. */
export function eventsFile(stateDir: string): string {
  return path.join(stateDir, 'events.jsonl');
}

/** Appends events to events.jsonl and hands each to the listeners. */
export class EventLog {
  private readonly file: string;
  /** events.jsonl, open for appending from the first event to close(). */
  private fd: number | undefined;

  constructor(
    stateDir: string,
    readonly run: string,
    private readonly listeners: EventListener[] = [],
    private readonly clock: () => Date = () => new Date(),
  ) {
    mkdirSync(stateDir, { recursive: true });
    this.file = eventsFile(stateDir);
  }

  /** Record an event: one JSON line, appended before anyone is told of it. */
  emit(type: SupervisorEvent['type'], fields: Omit<SupervisorEvent, 'time' | 'type' | 'run'> = {}): SupervisorEvent {
    const event = { time: this.clock().toISOString(), type, run: this.run, ...fields } as SupervisorEvent;
    // Sync on purpose: a handful of small lines per step, and each must be on disk
    // before a crash could make it the last thing a person looks for. The file stays open:
    // an open and a close for each of those lines cost more than writing them.
    this.fd ??= openSync(this.file, 'a');
    appendFileSync(this.fd, `${JSON.stringify(event)}\n`);
    for (const listener of this.listeners) listener(event);
    return event;
  }

  /** Close the events file (a later event opens it again). */
  close(): void {
    if (this.fd === undefined) return;
    closeSync(this.fd);
    this.fd = undefined;
  }
}
