import path from 'node:path';
import { eventTable, type CapabilityEvents } from '../events/capability-events.js';
import { RunFold } from '../events/fold.js';
import { parseEvent } from '../events/parse.js';
import type { AttemptRecord } from '../events/records.js';
import { NewestFirst, withStore } from '../events/event-files.js';

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
  attempt?: AttemptRecord;
  /** The newest run in the log. */
  lastRun?: string;
  /** The steps seen of the run the search was kept to, if it was. */
  steps: number[];
  /** Whether any event was read at all. */
  anyEvents: boolean;
  /** The size of the events file when it was read: an attempt found unfinished ends after it. */
  size: number;
  /**
   * The Manager's turn that halted the run (a valid reply, status not ok), when the last attempt
   * was that turn and `attempt` is the worker's attempt it heard (the morning read starts there).
   */
  haltedBy?: AttemptRecord;
}

/**
 * `logs`' view of the fold: the newest attempt matching `filter`, the history (`events`, then
 * its rotated file) read from its end, so that the usual question — the last attempt — reads
 * a few KiB of a log of any size. `--step` without `--run` means a step of the last run.
 * `capabilityEvents`: the capabilities' event types, read and folded as each one says.
 */
export function findAttempt(
  boardDir: string,
  events: string,
  filter: AttemptFilter,
  capabilityEvents: readonly CapabilityEvents[],
): Search {
  const search: Search = { steps: [], anyEvents: false, size: 0 };
  const task = filter.task === undefined ? undefined : path.posix.normalize(filter.task.replace(/\\/g, '/'));
  const table = eventTable(capabilityEvents);
  const fold = new RunFold(table.folds);
  withStore(
    boardDir,
    (files) => {
      // Taken before reading: an end written meanwhile is read twice at worst, never missed.
      search.size = files.find((file) => !file.rotated)?.size ?? 0;
      for (const line of new NewestFirst(files)) {
        const event = parseEvent(line.text, table.checks);
        if (!event) continue;
        search.anyEvents = true;
        search.lastRun ??= event.run;
        const run = filter.run ?? (filter.step === undefined ? undefined : search.lastRun);
        if (run !== undefined && event.run !== run) continue;
        const a = fold.add(event);
        if (!a || !matches(a, filter, task)) continue;
        // The last attempt is a Manager's halt: what the person wants first is the reply it halted on.
        if (search.haltedBy === undefined && Object.keys(filter).length === 0 && isHalt(a)) {
          search.haltedBy = a;
          continue;
        }
        const h = search.haltedBy;
        if (h && (a.run !== h.run || a.step !== h.step || a.manager)) continue;
        search.attempt = a;
        return;
      }
    },
    events,
  );
  // No worker's attempt before the halt (none recorded): the Manager's turn is the last attempt.
  if (!search.attempt && search.haltedBy) {
    search.attempt = search.haltedBy;
    delete search.haltedBy;
  }
  const kept = filter.run ?? (filter.step === undefined ? undefined : search.lastRun);
  search.steps = kept === undefined ? [] : (fold.peek(kept)?.stepRecords.map((s) => s.step) ?? []);
  return search;
}

function matches(a: AttemptRecord, filter: AttemptFilter, task: string | undefined): boolean {
  if (filter.step !== undefined && a.step !== filter.step) return false;
  if (filter.attempt !== undefined && a.attempt !== filter.attempt) return false;
  if (filter.role !== undefined && a.role.toLowerCase() !== filter.role.toLowerCase()) return false;
  return task === undefined || (a.task === task && (!a.manager || filter.role !== undefined));
}

// A Manager's turn that halted the run for a person: a valid reply whose status is not ok.
function isHalt(a: AttemptRecord): boolean {
  return a.manager && a.trigger === undefined && a.finished?.valid === true && a.finished.status !== 'ok';
}
