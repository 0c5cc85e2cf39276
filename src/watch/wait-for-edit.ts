import path from 'node:path';
import type { Clock } from '../loop/world.js';
import { changedFiles, type Snapshot, type WatchSet } from './files.js';
import type { DirWatcher } from './watcher.js';

/** How a waiting supervisor learns of changes: change events, or only its own comparisons. */
export type WatchVia = { via: 'fs.watch' } | { via: 'polling'; why: string };

/** Everything a wait needs, passed in: the clock, the watcher, and how to look at the files. */
export interface WaitDeps {
  clock: Clock;
  /** Aborted when the run must stop (a signal, a lost lock): the wait ends with its reason. */
  stop: AbortSignal;
  watcher: DirWatcher;
  /** What to watch, board-relative (files.ts). */
  set: WatchSet;
  /** Absolute path of a board-relative one. */
  at: (relative: string) => string;
  snapshot: (files: readonly string[], previous?: Snapshot) => Snapshot;
  /** A change is acted on once no event and no difference was seen for this long. */
  debounceMs: number;
  /** The files are also compared this often, for file systems that give no change events. */
  pollMs: number;
  /** When the wait ends by itself (ms since the epoch), if it does: a usage limit's reset. */
  until?: number;
  /** Told how changes are watched for, when the wait starts and if fs.watch fails later. */
  onWatching?: (how: WatchVia) => void;
}

/** Why a wait ended: files that changed (and how they are now), or its `until` passed. */
export type Wake = { by: 'change'; files: string[]; snapshot: Snapshot } | { by: 'time'; snapshot: Snapshot };

// A poll every millisecond would be a busy loop, whatever watch_poll says.
const MIN_POLL_MS = 100;

/**
 * Wait until the watched files' contents differ from `baseline` and have settled (debounced:
 * an editor's several writes are one change), or until `until`. Anything written before
 * `baseline` was taken — the supervisor's own board write, an agent's edits during a step —
 * is in it, so it never counts. A file touched but not changed does not count either.
 * Throws the stop's reason when the run is told to stop.
 */
export async function waitForChange(deps: WaitDeps, baseline: Snapshot): Promise<Wake> {
  const { clock, stop, set } = deps;
  let events = 0;
  let kick = new AbortController();
  // Events about files it does not watch (a log or build output beside the board, an editor's
  // swap file) are dropped: a folder that is never quiet must not hold back a person's edit.
  const watched = new Set(set.files);
  const relative = new Map(set.dirs.map((dir) => [deps.at(dir), dir]));
  const onChange = (dir: string, file: string | null) => {
    if (file !== null && !watched.has(path.normalize(path.join(relative.get(dir) ?? '.', file)))) return;
    events++;
    kick.abort();
  };
  let close = () => {};
  const fallBack = (error: unknown) => {
    close();
    close = () => {};
    deps.onWatching?.({ via: 'polling', why: error instanceof Error ? error.message : String(error) });
  };
  try {
    close = deps.watcher(set.dirs.map(deps.at), onChange, fallBack);
    deps.onWatching?.({ via: 'fs.watch' });
  } catch (error) {
    fallBack(error);
  }
  const pollMs = Math.max(MIN_POLL_MS, deps.pollMs);
  const look = (previous: Snapshot) => deps.snapshot(set.files, previous);
  try {
    let now = baseline;
    for (;;) {
      const left = deps.until === undefined ? Infinity : deps.until - clock.now().getTime();
      if (left <= 0) return { by: 'time', snapshot: look(now) };
      await sleepEither(clock, Math.min(pollMs, left), stop, kick.signal);
      if (stop.aborted) throw stop.reason;
      const kicked = kick.signal.aborted;
      kick = new AbortController();
      now = look(now);
      if (!kicked && changedFiles(baseline, now).length === 0) continue;
      now = await settle(deps, now, () => events);
      const files = changedFiles(baseline, now);
      if (files.length) return { by: 'change', files, snapshot: now };
      // Events about other files (a swap file, a log) or an edit undone: keep waiting.
    }
  } finally {
    close();
  }
}

// Wait until a whole debounce period passes with no event and no difference.
async function settle(deps: WaitDeps, from: Snapshot, events: () => number): Promise<Snapshot> {
  let now = from;
  for (;;) {
    const before = events();
    await deps.clock.sleep(deps.debounceMs, deps.stop);
    if (deps.stop.aborted) throw deps.stop.reason;
    const later = deps.snapshot(deps.set.files, now);
    const quiet = events() === before && changedFiles(now, later).length === 0;
    now = later;
    if (quiet) return now;
  }
}

// Sleep until `ms` pass or either signal aborts.
async function sleepEither(clock: Clock, ms: number, a: AbortSignal, b: AbortSignal): Promise<void> {
  if (a.aborted || b.aborted) return;
  const both = new AbortController();
  const abort = () => both.abort();
  a.addEventListener('abort', abort, { once: true });
  b.addEventListener('abort', abort, { once: true });
  try {
    await clock.sleep(ms, both.signal);
  } finally {
    a.removeEventListener('abort', abort);
    b.removeEventListener('abort', abort);
  }
}
