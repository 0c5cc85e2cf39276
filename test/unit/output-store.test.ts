import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { OutputStore, RUNS, type Retention } from '../../src/log/output-store.js';
import { makeBoard, tempDir } from '../helpers.js';

const WIDE: Retention = { runs: 20, bytes: 1024 ** 3, attempts: 10_000 };

// One attempt through the store as the attempt runner makes it: stdout and stderr as given ('' writes nothing).
function attempt(store: OutputStore, step: number, task: string, out: string, err = '', failed = false) {
  const files = store.open(step, 'Implementor', 1, task);
  files.out.write(Buffer.from(out));
  files.err.write(Buffer.from(err));
  return store.close(files, failed);
}

function runFiles(dir: string, run: string): string[] {
  return readdirSync(path.join(dir, RUNS, run)).sort();
}

describe('attempt output retention', () => {
  it('keeps keep_attempts attempts, counting an attempt once whether it wrote stdout, stderr or both', () => {
    const dir = makeBoard({});
    const store = new OutputStore(dir, 'r1', { ...WIDE, attempts: 3 });
    for (let step = 1; step <= 6; step++) attempt(store, step, 'tasks/a.md', 'out\n', step % 2 ? 'err\n' : '');
    store.dispose();
    expect(runFiles(dir, 'r1')).toEqual([
      '000000004-implementor-1-tasks_a.out',
      '000000005-implementor-1-tasks_a.err',
      '000000005-implementor-1-tasks_a.out',
      '000000006-implementor-1-tasks_a.out',
    ]);
  });

  it('leaves no file for an attempt that printed nothing', () => {
    const dir = makeBoard({});
    const store = new OutputStore(dir, 'r1', WIDE);
    expect(attempt(store, 1, 'tasks/a.md', '')).toEqual({});
    attempt(store, 2, 'tasks/a.md', 'x');
    store.dispose();
    expect(runFiles(dir, 'r1')).toEqual(['000000002-implementor-1-tasks_a.out']);
  });

  it('keeps the bytes under keep_bytes, the oldest attempts going first', () => {
    const dir = makeBoard({});
    const store = new OutputStore(dir, 'r1', { ...WIDE, bytes: 100 });
    for (let step = 1; step <= 5; step++) attempt(store, step, 'tasks/a.md', 'x'.repeat(40));
    store.dispose();
    expect(runFiles(dir, 'r1')).toEqual(['000000004-implementor-1-tasks_a.out', '000000005-implementor-1-tasks_a.out']);
  });

  it("prunes each task's last failed attempt last", () => {
    const dir = makeBoard({});
    const store = new OutputStore(dir, 'r1', { ...WIDE, attempts: 2 });
    attempt(store, 1, 'tasks/x.md', 'prose', 'trace', true);
    for (let step = 2; step <= 5; step++) attempt(store, step, 'tasks/y.md', '{"status":"ok"}');
    store.dispose();
    expect(runFiles(dir, 'r1')).toEqual([
      '000000001-implementor-1-tasks_x.failed.err',
      '000000001-implementor-1-tasks_x.failed.out',
      '000000005-implementor-1-tasks_y.out',
    ]);
  });

  it(
    'counts what earlier runs left, drops runs past keep_runs at the start, ' +
      "and never touches a person's file there",
    () => {
      const dir = makeBoard({});
      for (const run of ['r1', 'r2', 'r3']) {
        const store = new OutputStore(dir, run, WIDE);
        attempt(store, 1, 'tasks/a.md', `${run}\n`, `${run} err\n`);
        store.dispose();
      }
      writeFileSync(path.join(dir, RUNS, 'r1', 'notes.txt'), 'mine\n');
      const store = new OutputStore(dir, 'r4', { ...WIDE, runs: 2, attempts: 2 });
      expect(readdirSync(path.join(dir, RUNS)).sort()).toEqual(['r1', 'r3']);
      expect(runFiles(dir, 'r1')).toEqual(['notes.txt']);
      attempt(store, 1, 'tasks/a.md', 'r4\n');
      attempt(store, 2, 'tasks/a.md', 'r4 again\n');
      store.dispose();
      // Two attempts in all: r3's went first, as the oldest; the person's file is not an attempt.
      expect(readdirSync(path.join(dir, RUNS)).sort()).toEqual(['r1', 'r4']);
      expect(runFiles(dir, 'r1')).toEqual(['notes.txt']);
      expect(runFiles(dir, 'r4')).toEqual([
        '000000001-implementor-1-tasks_a.out',
        '000000002-implementor-1-tasks_a.out',
      ]);
    },
  );

  it('never follows a run folder swapped for a symlink: what it points at is neither counted nor removed', () => {
    const dir = makeBoard({});
    const outside = tempDir('ks-outside-');
    writeFileSync(path.join(outside, '000000001-implementor-1-tasks_a.out'), 'precious\n');
    mkdirSync(path.join(dir, RUNS), { recursive: true });
    symlinkSync(outside, path.join(dir, RUNS, 'r0'));
    const store = new OutputStore(dir, 'r1', { ...WIDE, runs: 1, attempts: 1 });
    attempt(store, 1, 'tasks/a.md', 'a');
    attempt(store, 2, 'tasks/a.md', 'b');
    store.dispose();
    expect(readFileSync(path.join(outside, '000000001-implementor-1-tasks_a.out'), 'utf8')).toBe('precious\n');
    expect(runFiles(dir, 'r1')).toEqual(['000000002-implementor-1-tasks_a.out']);
  });
});
