import {
  closeSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
// The benchmark's history: the supervisor's own event shapes, every way a run ends, retries, a task never run.
import { synthesize } from '../../bench/lib/history-synth.mjs';
import { parseEvents } from '../../src/events/parse.js';
import { eventTable } from '../../src/events/capability-events.js';
import { CAPABILITY_EVENTS } from '../../src/run/capability-list.js';
import { read, runCli, tempDir } from '../helpers.js';
import { buildHistory, type PlainRun as RunRecord } from '../reference-fold.js';

const EVENTS = '.kanban-supervisor/events.jsonl';

/** Every run of a board's history, built the plain way: the whole file, split and parsed. */
function allRuns(dir: string): RunRecord[] {
  return buildHistory(
    parseEvents(
      read(dir, EVENTS)
        .split('\n')
        .map((text) => ({ text })),
      eventTable(CAPABILITY_EVENTS).checks,
    ),
  );
}

function lastWorkerAttempts(runs: RunRecord[]): Map<string, RunRecord['attempts'][number]> {
  return new Map(runs.flatMap((r) => r.attempts.filter((a) => !a.manager).map((a) => [a.task, a] as const)));
}

function attemptCount(runs: RunRecord[]): number {
  return runs.reduce((n, r) => n + r.attempts.length, 0);
}

describe('status and report on a long history', () => {
  it(
    'status shows each task’s last attempt, the last run and the last halt of a 40,000-event history (12 MiB, ' +
      'read whole)',
    async () => {
      const dir = tempDir('ks-long-');
      synthesize(dir, { tasks: 10, events: 40_000 });
      const runs = allRuns(dir);
      const last = lastWorkerAttempts(runs);

      const json = await runCli(['status', 'kanban.yaml', '--json'], { cwd: dir });
      expect(json.exitCode).toBe(0);
      const report = JSON.parse(json.stdout) as {
        tasks: Array<{ task: string; last?: unknown }>;
        lastRun: { id: string; steps: number };
        lastHalt: { run: string };
        history: { readAll: boolean };
      };
      expect(report.history.readAll).toBe(true);
      for (const task of report.tasks) expect(task.last).toEqual(last.get(task.task));
      expect(report.lastRun).toMatchObject({ id: runs.at(-1)?.id, steps: runs.at(-1)?.steps });
      expect(report.lastHalt.run).toBe(runs.filter((r) => r.end && r.end.type !== 'done').at(-1)?.id);

      const text = await runCli(['status', 'kanban.yaml'], { cwd: dir });
      expect(text.stdout).toMatch(/^ {2}→ tasks\/t00010\.md {2}Implementor {2}not run yet( — .*)?$/m);
      expect(text.stdout).toMatch(
        new RegExp(
          `^ {4}tasks/t00001\\.md {2}Implementor {2}.*\\(.*step ${last.get('tasks/t00001.md')?.step} of the `,
          'm',
        ),
      );
    },
  );

  it('report shows the last 10 runs by default, --runs N the last N, --all every run, each attempt once', async () => {
    const dir = tempDir('ks-long-');
    synthesize(dir, { tasks: 10, events: 30_000 });
    const runs = allRuns(dir);
    expect(runs.length).toBeGreaterThan(10);

    const byDefault = await runCli(['report', 'kanban.yaml'], { cwd: dir });
    expect(byDefault.exitCode).toBe(0);
    expect(byDefault.stdout).toContain(
      `: 10 run(s) (the last 10; older runs are left out, --all shows every run), ` +
        `${attemptCount(runs.slice(-10))} attempt(s).`,
    );
    const page = read(dir, '.kanban-supervisor/report.html');
    expect([...page.matchAll(/<section class="run" data-run="([^"]+)"/g)].map((m) => m[1])).toEqual(
      runs
        .slice(-10)
        .map((r) => r.id)
        .reverse(),
    );
    expect(page).toContain('older runs are left out (kanban-supervisor report --all shows every run)');

    const three = await runCli(['report', 'kanban.yaml', '--runs', '3', '--out', 'three.html'], { cwd: dir });
    expect(three.stdout).toContain(
      `: 3 run(s) (the last 3; older runs are left out, --all shows every run), ` +
        `${attemptCount(runs.slice(-3))} attempt(s).`,
    );

    const all = await runCli(['report', 'kanban.yaml', '--all', '--out', 'all.html'], { cwd: dir });
    expect(all.stdout).toContain(`Wrote all.html: ${runs.length} run(s), ${attemptCount(runs)} attempt(s).`);
    const whole = read(dir, 'all.html');
    expect(whole.match(/<tr class="[a-z -]+" data-attempt-row=/g)).toHaveLength(attemptCount(runs));
    expect(whole.match(/<a class="bar /g)).toHaveLength(attemptCount(runs));
  });

  it('refuses --runs that is not a positive whole number, and --runs with --all', async () => {
    const dir = tempDir('ks-long-');
    synthesize(dir, { tasks: 2, events: 200 });
    for (const bad of ['0', '-1', '2.5', 'ten']) {
      const result = await runCli(['report', 'kanban.yaml', `--runs=${bad}`], { cwd: dir });
      expect(result.exitCode).toBe(2);
      expect(result.stderr).toBe(
        `kanban-supervisor: --runs must be a whole number of runs, 1 or more (got "${bad}"). For every run, ` +
          `pass --all.`,
      );
    }
    const both = await runCli(['report', 'kanban.yaml', '--runs', '2', '--all'], { cwd: dir });
    expect(both.exitCode).toBe(2);
    expect(both.stderr).toMatch(/--runs and --all ask for different runs/);
  });

  it(
    'a history past the old 512 MiB limit is read, not shown as blank: 600 MiB of zeros (a sparse file) ' +
      'before the real events',
    async () => {
      const dir = tempDir('ks-huge-');
      synthesize(dir, { tasks: 10, events: 3_000 });
      const runs = allRuns(dir);
      const events = readFileSync(path.join(dir, EVENTS));
      const file = path.join(dir, EVENTS);
      const fd = openSync(file, 'w');
      const hole = 600 * 2 ** 20;
      ftruncateSync(fd, hole);
      writeSync(fd, Buffer.concat([Buffer.from('\n'), events]), 0, events.length + 1, hole);
      closeSync(fd);
      expect(statSync(file).size).toBeGreaterThan(512 * 2 ** 20);

      const json = await runCli(['status', 'kanban.yaml', '--json'], { cwd: dir });
      const report = JSON.parse(json.stdout) as {
        tasks: Array<{ task: string; last?: unknown }>;
        history: { readAll: boolean; read: number };
      };
      const last = lastWorkerAttempts(runs);
      for (const task of report.tasks) expect(task.last).toEqual(last.get(task.task));
      expect(report.history).toMatchObject({ readAll: false, read: 16 * 2 ** 20 });
      const status = await runCli(['status', 'kanban.yaml'], { cwd: dir });
      expect(status.exitCode).toBe(0);
      expect(status.stdout).toMatch(
        /^ {2}→ tasks\/t00010\.md {2}Implementor {2}no outcome in the last 16 MiB of history( — .*)?$/m,
      );
      expect(status.stdout).toMatch(
        new RegExp(
          String.raw`^Last run: started \d{4}-\S+ \S+, \d+ step\(s\): stopped: ` +
            String.raw`an agent gave no valid reply after every retry\. .*\(exit 3\)`,
          'm',
        ),
      );

      const all = await runCli(['report', 'kanban.yaml', '--all'], { cwd: dir });
      expect(all.exitCode).toBe(0);
      expect(all.stdout).toContain(`: ${runs.length} run(s), ${attemptCount(runs)} attempt(s).`);
    },
  );
});

describe('right after the history was rotated', () => {
  it('status and report read events.1.jsonl too: the tasks that ran are not shown as never run', async () => {
    const dir = tempDir('ks-rotated-');
    synthesize(dir, { tasks: 10, events: 3_000 });
    const runs = allRuns(dir);
    const last = lastWorkerAttempts(runs);
    // What the rotation leaves: the old events moved to events.1.jsonl, a few new ones after it.
    const file = path.join(dir, EVENTS);
    const rotated = path.join(dir, '.kanban-supervisor/events.1.jsonl');
    const whole = readFileSync(file, 'utf8');
    const cut = whole.lastIndexOf('\n', whole.length - 2 - 400) + 1;
    expect(whole.slice(cut).split('\n').length).toBeLessThan(6);
    const moments = {
      'a few events after it': () => (
        writeFileSync(rotated, whole.slice(0, cut)),
        writeFileSync(file, whole.slice(cut))
      ),
      'before the next event': () => (
        renameSync(file, rotated),
        writeFileSync(rotated, whole),
        rmSync(file, { force: true })
      ),
    };
    for (const [moment, make] of Object.entries(moments)) {
      make();
      const json = await runCli(['status', 'kanban.yaml', '--json'], { cwd: dir });
      expect(json.exitCode).toBe(0);
      const report = JSON.parse(json.stdout) as {
        tasks: Array<{ task: string; last?: unknown }>;
        lastRun: { id: string };
        history: { readAll: boolean };
      };
      expect(report.history.readAll).toBe(true);
      for (const task of report.tasks) expect(task.last).toEqual(last.get(task.task));
      expect(report.lastRun.id).toBe(runs.at(-1)?.id);
      const text = await runCli(['status', 'kanban.yaml'], { cwd: dir });
      expect(text.stdout.match(/not run yet/g), moment).toHaveLength(1); // t00010 only, added after the last run
    }
    moments['a few events after it']();

    const all = await runCli(['report', 'kanban.yaml', '--all', '--out', 'all.html'], { cwd: dir });
    expect(all.exitCode).toBe(0);
    expect(all.stdout).toContain(`Wrote all.html: ${runs.length} run(s), ${attemptCount(runs)} attempt(s).`);
    const two = await runCli(['report', 'kanban.yaml', '--runs', '2', '--out', 'two.html'], { cwd: dir });
    expect(two.stdout).toContain(
      `: 2 run(s) (the last 2; older runs are left out, --all shows every run), ` +
        `${attemptCount(runs.slice(-2))} attempt(s).`,
    );
  });
});

describe('a report that cannot be written', () => {
  it('is an error naming the page, leaving no half-written file behind', async () => {
    const dir = tempDir('ks-unwritable-');
    synthesize(dir, { tasks: 2, events: 200 });
    // A folder is a place for report.html now (issue 35); one whose report.html is a folder cannot take it.
    mkdirSync(path.join(dir, 'page', 'report.html'), { recursive: true });
    const result = await runCli(['report', 'kanban.yaml', '--out', 'page'], { cwd: dir });
    expect(result.exitCode).toBe(73);
    expect(result.stderr).toMatch(/^kanban-supervisor: page\/report\.html: the report cannot be written \(EISDIR\)\./);
    expect(readdirSync(dir).filter((name) => name.includes('.tmp'))).toEqual([]);
  });
});

describe('a history that cannot be read', () => {
  it('is an error naming the file and the fix for status and report, never a blank', async () => {
    const dir = tempDir('ks-unreadable-');
    synthesize(dir, { tasks: 2, events: 200 });
    rmSync(path.join(dir, EVENTS));
    mkdirSync(path.join(dir, EVENTS));
    for (const command of ['status', 'report']) {
      const result = await runCli([command, 'kanban.yaml'], { cwd: dir });
      expect(result.exitCode).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toBe(
        `kanban-supervisor: ${EVENTS}: the event history cannot be read (it is a folder, not a file). ` +
          `Move it aside (mv ${EVENTS} ${EVENTS}.old) to start a new history, or restore it; ` +
          `the board itself is not affected.`,
      );
    }
  });
});
