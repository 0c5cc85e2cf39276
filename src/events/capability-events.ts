import type { EventOf, EventType, SupervisorEvent } from '../event-types.js';
import type { Style } from '../util/style.js';
import type { EventFold, FoldInto, MoreFolds, RunRecord } from './fold.js';
import type { EventChecks, FieldChecks, MoreChecks, ReadEvent } from './parse.js';

/**
 * What the live terminal line does on a capability's event: whether it prints the event's console
 * line above, and what it now waits for (`waiting`, during a step) or, between the passes of a
 * resident run, what the run waits for (`resident`); null clears it, absent leaves it.
 */
export interface LiveChange {
  line: boolean;
  waiting?: string | null;
  resident?: string | null;
}

/**
 * One event type a capability adds (its fields are merged into EventFields, and their checks'
 * types into EventChecks, from the same events.ts): how it is read from the untrusted
 * events.jsonl and how it is shown.
 */
export interface EventPart<T extends EventType & keyof EventChecks> {
  /** The checks of the fields readers read (parse.ts); its type is the one merged into EventChecks. */
  checks: EventChecks[T];
  /** Its console line (plain output, and above the live line), or null for none; text from outside cleaned. */
  line?: (event: EventOf<T>, style: Style) => string | null;
  /** What the live terminal line does on it; without, it shows nothing there. */
  live?: (event: EventOf<T>) => LiveChange;
  /** What `status`, the report and the Manager's history fold from it (fold.ts). */
  fold?: EventFold<T>;
}

/** The part of a run `status` shows a capability's line for: the run without its attempts and steps. */
export type RunSummary = Omit<RunRecord, 'attempts' | 'stepRecords'>;

/**
 * Everything a capability adds to the events: its event types, and what `status` and the report
 * show of a run from what it folded. One object per capability, in its folder's events.ts; the
 * commands hand the list of them (run/capability-events.ts) to the core, which names none.
 */
export interface CapabilityEvents {
  types: { [T in EventType & keyof EventChecks]?: EventPart<T> };
  /** A line of `status`'s last run (indented by status), if it has something to say. */
  status?: (run: RunSummary) => string | undefined;
  /** HTML added after a run's head line in the report (` · …`), or ''; text from outside escaped. */
  report?: (run: RunRecord) => string;
}

/** The capabilities' event types gathered by type, for the core's readers and views. */
export interface EventTable {
  checks: MoreChecks;
  folds: MoreFolds;
  lines: ReadonlyMap<string, (event: SupervisorEvent, style: Style) => string | null>;
  lives: ReadonlyMap<string, (event: SupervisorEvent) => LiveChange>;
  status: ReadonlyArray<NonNullable<CapabilityEvents['status']>>;
  report: ReadonlyArray<NonNullable<CapabilityEvents['report']>>;
}

// An event part as the table holds it: the type is told by the key it is found under.
interface AnyPart {
  checks: FieldChecks;
  line?: (event: SupervisorEvent, style: Style) => string | null;
  live?: (event: SupervisorEvent) => LiveChange;
  fold?: (event: ReadEvent, into: FoldInto) => void;
}

const tables = new WeakMap<readonly CapabilityEvents[], EventTable>();

/** The table of a list of capabilities' events, made once per list; an event type two of them add throws. */
export function eventTable(list: readonly CapabilityEvents[]): EventTable {
  const made = tables.get(list);
  if (made) return made;
  const checks = new Map<string, FieldChecks>();
  const folds = new Map<string, (event: ReadEvent, into: FoldInto) => void>();
  const lines = new Map<string, (event: SupervisorEvent, style: Style) => string | null>();
  const lives = new Map<string, (event: SupervisorEvent) => LiveChange>();
  for (const capability of list)
    for (const [type, part] of Object.entries(capability.types) as Array<[string, AnyPart]>) {
      if (checks.has(type)) throw new Error(`eventTable: the event type ${type} is added twice`);
      checks.set(type, part.checks);
      if (part.fold) folds.set(type, part.fold);
      if (part.line) lines.set(type, part.line);
      if (part.live) lives.set(type, part.live);
    }
  const table: EventTable = {
    checks,
    folds,
    lines,
    lives,
    status: list.flatMap((capability) => capability.status ?? []),
    report: list.flatMap((capability) => capability.report ?? []),
  };
  tables.set(list, table);
  return table;
}
