import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { boardWithTasks, events, fixtureRole, read, role, runCli } from '../helpers.js';
import { fixture, isRunning, recordedPids, startCli, survivors, waitFor } from './procs.js';

const LOCKED =
  /^kanban-supervisor: [\w.]+\.yaml is locked by another kanban-supervisor \(.*\)\. Wait for it to finish or stop it/;
const LOCK = '.kanban-supervisor/run.lock';

/** A one-task board whose worker appends to markers.txt and takes `seconds` to reply. */
function slowBoard(seconds: number): string {
  return boardWithTasks(1, {
    'roles/implementor.md': role(['sh', fixture('writes-marker.sh'), 'markers.txt', String(seconds)], 'stdin: none\n'),
  });
}

/** A process that does nothing for a minute: a live pid that is not a supervisor. */
function bystander() {
  const child = execa('node', ['-e', 'setTimeout(() => {}, 60000)'], { reject: false });
  return { pid: child.pid as number, stop: () => child.kill('SIGKILL') };
}

/** A pid that certainly ran and is gone now. */
async function deadPid(): Promise<number> {
  const gone = execa('node', ['-e', '0']);
  await gone;
  return gone.pid as number;
}

/** Plant a lock folder as another supervisor would have left it, made `ageMs` ago; returns its inode. */
function plantLock(dir: string, owner?: { pid: number; host?: string }, ageMs = 0): number {
  const lock = path.join(dir, LOCK);
  mkdirSync(lock, { recursive: true });
  if (owner)
    writeFileSync(
      path.join(lock, 'owner.json'),
      JSON.stringify({
        pid: owner.pid,
        host: owner.host ?? hostname(),
        since: '2026-01-02T03:04:05.000Z',
        board: 'kanban.yaml',
      }),
    );
  const then = new Date(Date.now() - ageMs);
  utimesSync(lock, then, then);
  return statSync(lock).ino;
}

describe('the run lock', () => {
  it('lets one of three supervisors started at once run a board; the other two exit 75 naming the holder', async () => {
    for (let round = 0; round < 2; round++) {
      const dir = slowBoard(2);
      const results = await Promise.all([0, 1, 2].map(() => runCli(['kanban.yaml'], { cwd: dir })));
      const codes = results.map((r) => r.exitCode).sort();
      expect(codes).toEqual([0, 75, 75]);
      for (const refused of results.filter((r) => r.exitCode === 75)) {
        expect(refused.stderr.trim()).toMatch(LOCKED);
        expect(refused.stderr.trim().split('\n')).toHaveLength(1);
      }
      expect(read(dir, 'markers.txt')).toBe('tasks/001.md\n');
      expect(events(dir).filter((e) => e.type === 'run_started')).toHaveLength(1);
    }
  });

  it('takes over at once the lock of a supervisor killed by SIGKILL, and stops the agent it left running', async () => {
    const dir = boardWithTasks(
      1,
      { 'roles/implementor.md': fixtureRole('forever-with-grandchild.mjs', ['pids.jsonl'], 'stdin: none\n') },
      'phase: execute\nsupervisor:\n  kill_grace: 1s\n',
    );
    const cli = startCli(['kanban.yaml'], { cwd: dir });
    await waitFor(() => recordedPids(path.join(dir, 'pids.jsonl')).length === 2, 'the agent to start');
    const orphans = recordedPids(path.join(dir, 'pids.jsonl'));
    process.kill(cli.pid as number, 'SIGKILL');
    await cli;
    // The agent is in its own process group: the supervisor's death does not reach it.
    expect(orphans.filter(isRunning)).toEqual(orphans);
    expect(existsSync(path.join(dir, LOCK, 'owner.json'))).toBe(true);

    writeFileSync(path.join(dir, 'roles/implementor.md'), fixtureRole('exits-before-reading.mjs', [], 'stdin: none\n'));
    const started = Date.now();
    const again = await runCli(['kanban.yaml'], { cwd: dir });
    expect(again.exitCode).toBe(0);
    expect(Date.now() - started).toBeLessThan(10_000); // well before the lock would go stale (20 s)
    expect(await survivors(orphans)).toEqual([]);
    const run = events(dir)
      .filter((e) => e.type === 'run_started')
      .at(-1);
    expect(run).toMatchObject({ stoppedLeftoverAgent: { pid: orphans[0], role: 'Implementor', task: 'tasks/001.md' } });
  });

  it('takes over the lock of a supervisor killed between creating the lock and recording its owner', async () => {
    const dir = slowBoard(0);
    plantLock(dir, undefined, 10_000);
    const result = await runCli(['kanban.yaml'], { cwd: dir });
    expect(result.exitCode).toBe(0);
    expect(existsSync(path.join(dir, LOCK))).toBe(false);
  });

  it('never overrides a live owner, or a lock just made whose owner is still writing its record', async () => {
    const alive = bystander();
    try {
      const cases = [
        {
          name: 'live owner',
          plant: (dir: string) => plantLock(dir, { pid: alive.pid }, 60_000),
          holder: `pid ${alive.pid}`,
        },
        {
          name: 'just made, its owner still writing the record',
          plant: (dir: string) => {
            const ino = plantLock(dir);
            setTimeout(
              () =>
                writeFileSync(
                  path.join(dir, LOCK, 'owner.json'),
                  JSON.stringify({
                    pid: alive.pid,
                    host: hostname(),
                    since: '2026-01-02T03:04:05.000Z',
                    board: 'kanban.yaml',
                  }),
                ),
              500,
            );
            return ino;
          },
          holder: `pid ${alive.pid}`,
        },
      ];
      for (const { plant, holder } of cases) {
        const dir = slowBoard(0);
        const ino = plant(dir);
        const result = await runCli(['kanban.yaml'], { cwd: dir });
        expect(result.exitCode).toBe(75);
        expect(result.stderr).toMatch(LOCKED);
        expect(result.stderr).toContain(holder);
        expect(statSync(path.join(dir, LOCK)).ino).toBe(ino);
        expect(existsSync(path.join(dir, 'markers.txt'))).toBe(false);
      }
    } finally {
      alive.stop();
    }
  });

  it('honours a lock held on another host until it goes stale, then takes it', async () => {
    const dir = slowBoard(0);
    plantLock(dir, { pid: 1, host: 'elsewhere.example' });
    const refused = await runCli(['kanban.yaml'], { cwd: dir });
    expect(refused.exitCode).toBe(75);
    expect(refused.stderr).toContain('pid 1 on elsewhere.example');
    const longAgo = new Date(Date.now() - 60_000);
    utimesSync(path.join(dir, LOCK), longAgo, longAgo);
    const taken = await runCli(['kanban.yaml'], { cwd: dir });
    expect(taken.exitCode).toBe(0);
  });

  it(
    'stops the run safely with exit 75, its agent killed and the board unchanged, ' +
      'when the lock is taken away mid-run',
    async () => {
      const dir = boardWithTasks(
        1,
        { 'roles/implementor.md': fixtureRole('forever-with-grandchild.mjs', ['pids.jsonl'], 'stdin: none\n') },
        'phase: execute\nsupervisor:\n  kill_grace: 1s\n',
      );
      const before = read(dir, 'kanban.yaml');
      const cli = startCli(['kanban.yaml'], { cwd: dir });
      await waitFor(() => recordedPids(path.join(dir, 'pids.jsonl')).length === 2, 'the agent to start');
      rmSync(path.join(dir, LOCK), { recursive: true });
      const result = await cli; // the lock is checked every 2 s
      expect(result.exitCode).toBe(75);
      expect(result.stderr.trim()).toMatch(
        new RegExp(
          String.raw`^kanban-supervisor: kanban\.yaml: the run lock \.kanban-supervisor\/run\.lock was lost ` +
            String.raw`\(.*\); stopped to keep two supervisors off one board\.`,
        ),
      );
      expect(await survivors(recordedPids(path.join(dir, 'pids.jsonl')))).toEqual([]);
      expect(read(dir, 'kanban.yaml')).toBe(before);
      expect(events(dir).at(-1)).toMatchObject({ type: 'halted', exitCode: 75 });
    },
  );

  it('leaves no temp file or set-aside lock behind after a takeover', async () => {
    const dir = slowBoard(0);
    const dead = await deadPid();
    plantLock(dir, { pid: dead });
    writeFileSync(path.join(dir, `.kanban.yaml.${dead}-0badc0de0bad.tmp`), 'half a board');
    mkdirSync(path.join(dir, `${LOCK}.taken-${dead}`));
    expect((await runCli(['kanban.yaml'], { cwd: dir })).exitCode).toBe(0);
    const left = [...readdirSync(dir), ...readdirSync(path.join(dir, '.kanban-supervisor'))].filter((n) =>
      /lock|tmp/.test(n),
    );
    expect(left).toEqual([]);
    expect(readFileSync(path.join(dir, 'kanban.yaml'), 'utf8')).toMatch(/current: null/);
  });

  it(
    'keys the lock on the board folder itself: a run through a symlinked board name is refused and leaves the ' +
      "first run's agent alone",
    async () => {
      const dir = boardWithTasks(
        1,
        { 'roles/implementor.md': fixtureRole('forever-with-grandchild.mjs', ['pids.jsonl'], 'stdin: none\n') },
        'phase: execute\nsupervisor:\n  kill_grace: 1s\n',
      );
      symlinkSync('kanban.yaml', path.join(dir, 'board.yaml'));
      const first = startCli(['kanban.yaml'], { cwd: dir });
      await waitFor(() => recordedPids(path.join(dir, 'pids.jsonl')).length === 2, 'the agent to start');
      const agents = recordedPids(path.join(dir, 'pids.jsonl'));
      for (const alias of ['board.yaml', `../${path.basename(dir)}/./kanban.yaml`]) {
        const second = await runCli([alias], { cwd: dir });
        expect(second.exitCode).toBe(75);
        expect(second.stderr).toMatch(LOCKED);
        expect(agents.filter(isRunning)).toEqual(agents);
      }
      first.kill('SIGINT');
      expect((await first).exitCode).toBe(130);
      expect(await survivors(agents)).toEqual([]);
    },
  );
});
