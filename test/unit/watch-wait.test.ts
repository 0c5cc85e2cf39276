import { appendFileSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { changedFiles, snapshot, type Snapshot } from '../../src/watch/files.js';
import { waitForChange, type WaitDeps, type WatchVia } from '../../src/watch/wait-for-edit.js';
import type { DirWatcher } from '../../src/watch/watcher.js';
import { fakeWatcher, fakeWorld, START } from './fake-world.js';
import { makeBoard } from '../helpers.js';

function board() {
  const dir = makeBoard({
    'kanban.yaml': 'current: null\ntasks: [tasks/001.md]\n',
    'tasks/001.md': '---\ntitle: one\n---\n',
    'roles/manager.md': '---\ncommand: [node]\n---\n',
  });
  const files = ['kanban.yaml', 'roles/manager.md', 'tasks/001.md'];
  return { dir, files, write: (file: string, text: string) => writeFileSync(path.join(dir, file), text) };
}

function deps(
  dir: string,
  files: string[],
  w: ReturnType<typeof fakeWorld>,
  watcher: DirWatcher,
  extra: Partial<WaitDeps> = {},
): WaitDeps {
  return {
    clock: w.clock,
    stop: new AbortController().signal,
    watcher,
    set: { files, dirs: ['.', 'roles', 'tasks'] },
    at: (r) => path.join(dir, r),
    snapshot: (f, previous) => snapshot(dir, f, previous),
    debounceMs: 500,
    pollMs: 5_000,
    ...extra,
  };
}

describe('waiting for a person to edit the board', () => {
  it(
    'ignores what was written before the wait began and wakes, debounced, on a later change of content, ' +
      'naming the file',
    async () => {
      const { dir, files, write } = board();
      write('kanban.yaml', 'current: null\ntasks: [tasks/001.md]\n# the supervisor wrote this\n');
      const baseline = snapshot(dir, files);
      const w = fakeWorld();
      const fake = fakeWatcher();
      w.at(12_000, () => {
        write('tasks/001.md', '---\ntitle: one\n---\nANSWER: 8080\n');
        fake.fire('tasks/001.md');
      });
      const wake = await waitForChange(deps(dir, files, w, fake.watcher), baseline);
      expect(wake).toMatchObject({ by: 'change', files: ['tasks/001.md'] });
      expect(w.elapsed()).toBe(12_500); // the event cut the poll short; one quiet debounce followed
      expect(fake.watched).toEqual([['.', 'roles', 'tasks'].map((d) => path.join(dir, d))]);
      expect(fake.closed()).toBe(1);
    },
  );

  it('acts once on a burst of writes, after a whole quiet debounce period, on how the file ended up', async () => {
    const { dir, files, write } = board();
    const baseline = snapshot(dir, files);
    const w = fakeWorld();
    const fake = fakeWatcher();
    for (const [ms, text] of [
      [1_000, 'half'],
      [1_300, 'half more'],
      [1_600, 'current: null\ntasks: [tasks/001.md]\n# done\n'],
    ] as const) {
      w.at(ms, () => {
        write('kanban.yaml', text);
        fake.fire();
      });
    }
    const wake = await waitForChange(deps(dir, files, w, fake.watcher), baseline);
    expect(wake.by === 'change' && wake.files).toEqual(['kanban.yaml']);
    // Debounce windows from the first event: 1.0–1.5 s and 1.5–2.0 s saw writes, 2.0–2.5 s was quiet.
    expect(w.elapsed()).toBe(2_500);
    expect(changedFiles(snapshot(dir, files), wake.snapshot)).toEqual([]);
  });

  it('does not wake for a file touched but not changed, nor for events about files it does not watch', async () => {
    const { dir, files, write } = board();
    const baseline = snapshot(dir, files);
    const w = fakeWorld();
    const fake = fakeWatcher();
    w.at(1_000, () => {
      utimesSync(path.join(dir, 'kanban.yaml'), new Date(), new Date(Date.now() + 5_000));
      fake.fire();
    });
    w.at(3_000, () => {
      write('tasks/.001.md.swp', 'editor state');
      fake.fire('tasks/.001.md.swp');
    });
    w.at(60_000, () => appendFileSync(path.join(dir, 'roles/manager.md'), 'Be brief.\n'));
    const wake = await waitForChange(deps(dir, files, w, fake.watcher), baseline);
    expect(wake.by === 'change' && wake.files).toEqual(['roles/manager.md']);
    // The swap file's event was dropped; no event was fired for the role file: the poll saw it
    // (every 5 s from 1.5 s, the end of the touch's debounce), then it was debounced.
    expect(w.elapsed()).toBe(61_500 + 500);
  });

  it('is not held back by a folder that is never quiet: events about files it does not watch are dropped', async () => {
    const { dir, files, write } = board();
    const baseline = snapshot(dir, files);
    const w = fakeWorld();
    const fake = fakeWatcher();
    for (let ms = 100; ms < 30_000; ms += 100) w.at(ms, () => fake.fire('server.log'));
    w.at(2_000, () => {
      write('kanban.yaml', 'current: tasks/001.md\ntasks: [tasks/001.md]\n');
      fake.fire('kanban.yaml');
    });
    const wake = await waitForChange(deps(dir, files, w, fake.watcher), baseline);
    expect(wake.by === 'change' && wake.files).toEqual(['kanban.yaml']);
    expect(w.elapsed()).toBe(2_500);
  });

  it('falls back to comparing the files every watch_poll when folders cannot be watched, and says why', async () => {
    const { dir, files, write } = board();
    const baseline = snapshot(dir, files);
    const w = fakeWorld();
    const told: WatchVia[] = [];
    w.at(7_000, () => write('kanban.yaml', 'current: tasks/001.md\ntasks: [tasks/001.md]\n'));
    const wake = await waitForChange(
      deps(dir, files, w, fakeWatcher({ fails: 'ENOSPC: System limit for number of file watchers reached' }).watcher, {
        pollMs: 2_000,
        onWatching: (how) => told.push(how),
      }),
      baseline,
    );
    expect(told).toEqual([{ via: 'polling', why: 'ENOSPC: System limit for number of file watchers reached' }]);
    expect(wake.by === 'change' && wake.files).toEqual(['kanban.yaml']);
    expect(w.elapsed()).toBe(8_500);
  });

  it('ends by itself at `until` when nothing changed, and at once with the stop reason when told to stop', async () => {
    const { dir, files } = board();
    const baseline = snapshot(dir, files);
    const w = fakeWorld();
    const wake = await waitForChange(deps(dir, files, w, fakeWatcher().watcher, { until: START + 12_345 }), baseline);
    expect(wake.by).toBe('time');
    expect(w.elapsed()).toBe(12_345);

    const stop = new AbortController();
    const stopping = fakeWorld();
    stopping.at(30_000, () => stop.abort(new Error('Interrupted by SIGTERM')));
    await expect(
      waitForChange(deps(dir, files, stopping, fakeWatcher().watcher, { stop: stop.signal }), baseline),
    ).rejects.toThrow('Interrupted by SIGTERM');
    expect(stopping.elapsed()).toBe(30_000);
  });
});

describe('how the watched files are compared', () => {
  it('sees a file appear, vanish or change, and reads a file again only when its stat changed', () => {
    const { dir, write } = board();
    const files = ['kanban.yaml', 'tasks/002.md'];
    const before: Snapshot = snapshot(dir, files);
    expect(before.get('tasks/002.md')).toBeNull();
    write('tasks/002.md', 'new');
    const after = snapshot(dir, files, before);
    expect(changedFiles(before, after)).toEqual(['tasks/002.md']);
    // The same object: not read again.
    expect(snapshot(dir, files, after).get('kanban.yaml')).toBe(after.get('kanban.yaml'));
  });
});
