import path from 'node:path';
import type { Clock } from '../../src/loop/world.js';
import type { DirWatcher } from '../../src/watch/watcher.js';

/** Where a fake world's clock starts. */
export const START = Date.parse('2026-11-23T20:00:00Z');

/**
 * A clock whose sleeps pass at once; `at(ms, action)` runs an action (an edit, a change event,
 * a signal) when the clock reaches START + ms, as the world would while the supervisor slept.
 * An action that aborts the sleep's signal cuts the sleep short there.
 */
export function fakeWorld() {
  let t = START;
  const scheduled: Array<{ at: number; action: () => void }> = [];
  const clock: Clock = {
    now: () => new Date(t),
    sleep: async (ms, signal) => {
      if (signal.aborted) return;
      const end = t + ms;
      for (;;) {
        const next = scheduled.filter((s) => s.at <= end).sort((a, b) => a.at - b.at)[0];
        if (!next) break;
        scheduled.splice(scheduled.indexOf(next), 1);
        t = Math.max(t, next.at);
        next.action();
        if (signal.aborted) return;
      }
      t = end;
    },
  };
  return {
    clock,
    elapsed: () => t - START,
    at: (ms: number, action: () => void) => void scheduled.push({ at: START + ms, action }),
  };
}

/**
 * A watcher whose change events the test fires (about a file, else about no file in particular);
 * it records the folders it was asked to watch.
 */
export function fakeWatcher(options: { fails?: string } = {}) {
  let onChange: ((dir: string, file: string | null) => void) | undefined;
  let dirs: readonly string[] = [];
  const watched: string[][] = [];
  let closed = 0;
  const watcher: DirWatcher = (watching, change) => {
    if (options.fails) throw new Error(options.fails);
    watched.push([...watching]);
    dirs = watching;
    onChange = change;
    return () => void closed++;
  };
  /** Fire an event about `file` (board-relative: its folder must be watched), or about nothing named. */
  const fire = (file?: string) => {
    const board = [...dirs].sort((a, b) => a.length - b.length)[0] ?? '';
    onChange?.(
      file === undefined ? board : path.join(board, path.dirname(file)),
      file === undefined ? null : path.basename(file),
    );
  };
  return { watcher, watched, fire, closed: () => closed };
}
