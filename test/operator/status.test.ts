import { existsSync, mkdirSync, readFileSync, readlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { boardWithTasks, CLI, fixtureRole, runCli } from '../helpers.js';
import { snapshot } from './snapshot.js';

async function waitFor(check: () => boolean, what: string, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('status', () => {
  it('shows the phase, each task with its role and last outcome, the last halt and why, writing nothing', async () => {
    const dir = boardWithTasks(2, {
      'roles/implementor.md': fixtureRole('scripted.mjs', ['/dev/null', 'garbage']),
      'tasks/002.md': '---\nrole: Architect\ntitle: review\n---\nReview.\n',
      'roles/architect.md': fixtureRole('scripted.mjs', ['/dev/null']),
    });
    const run = await runCli([path.join(dir, 'kanban.yaml'), '--max-retries', '1']);
    expect(run.exitCode).toBe(3);
    const before = snapshot(dir);
    const result = await runCli(['status', 'kanban.yaml'], { cwd: dir });
    expect(result.exitCode).toBe(0);
    expect(snapshot(dir)).toEqual(before);
    const lines = result.stdout.split('\n');
    expect(lines[0]).toBe('kanban.yaml · phase execute · current tasks/001.md');
    expect(lines[1]).toBe('Supervisor: none running (the board is not locked)');
    expect(lines[2]).toBe('Tasks (2):');
    expect(lines[3]).toMatch(
      new RegExp(
        String.raw`^ {2}→ tasks\/001\.md {2}Implementor {2}✗ attempt 2\/2 printed no JSON .*\(step 1 of the ` +
          String.raw`last run\) — task 1$`,
      ),
    );
    expect(lines[4]).toBe('    tasks/002.md  Architect    not run yet — review');
    // How it ended, in words, with what to do next and the supervisor's own message.
    expect(lines[5]).toMatch(
      new RegExp(
        String.raw`^Last run: started \d{4}-\d\d-\d\d \d\d:\d\d:\d\d, 1 step\(s\): stopped: ` +
          String.raw`an agent gave no valid reply after every retry\. Fix the agent or its role file, ` +
          String.raw`then run again \(exit 3\) — Invalid output format: Implementor \(node .*\) printed no JSON`,
      ),
    );
    // The morning figures: no task completed, no model run, the one format retry.
    expect(lines[6]).toBe('  figures: 0 task(s) completed · 0 model run(s) · 1 retry · no usage-limit wait');
    expect(lines).toHaveLength(7); // the last line is empty: no separate halt line, the last run is the halt

    const json = await runCli(['status', 'kanban.yaml', '--json'], { cwd: dir });
    const report = JSON.parse(json.stdout) as {
      tasks: Array<{ task: string; role: string; last?: { finished: { valid: boolean } } }>;
      lock: { state: string };
      lastHalt: { exitCode: number };
    };
    expect(report.tasks.map((t) => [t.task, t.role, t.last?.finished.valid ?? null])).toEqual([
      ['tasks/001.md', 'Implementor', false],
      ['tasks/002.md', 'Architect', null],
    ]);
    expect(report.lock.state).toBe('free');
    expect(report.lastHalt.exitCode).toBe(3);
  });

  it(
    'shows the pid of a running supervisor without taking its lock; a second run is refused with 75, ' +
      'and Ctrl-C ends the first with 130',
    async () => {
      const dir = boardWithTasks(1, { 'roles/implementor.md': fixtureRole('scripted.mjs', ['/dev/null', 'hang']) });
      const first = execa('node', [CLI, path.join(dir, 'kanban.yaml')], {
        reject: false,
        env: { NO_COLOR: '1' },
        stdin: 'ignore',
        timeout: 60_000,
      });
      await waitFor(
        () =>
          existsSync(path.join(dir, '.kanban-supervisor', 'runs')) &&
          existsSync(path.join(dir, '.kanban-supervisor', 'run.lock', 'owner.json')),
        'the run to start',
      );

      const status = await runCli(['status', path.join(dir, 'kanban.yaml')]);
      expect(status.exitCode).toBe(0);
      expect(status.stdout).toMatch(
        new RegExp(`^Supervisor: running: pid ${first.pid} since \\S+ \\S+ \\(\\S+\\)$`, 'm'),
      );
      expect(status.stdout).toMatch(/Last run: .*: still running/);

      const second = await runCli([path.join(dir, 'kanban.yaml')]);
      expect(second.exitCode).toBe(75);
      expect(second.stderr).toMatch(
        new RegExp(
          `^kanban-supervisor: kanban\\.yaml is locked by another kanban-supervisor \\(pid ${first.pid} on .*Wait ` +
            `for it to finish or stop it`,
        ),
      );

      first.kill('SIGINT');
      const ended = await first;
      expect(ended.exitCode).toBe(130);
      expect(ended.stderr).toMatch(
        /^kanban-supervisor: Interrupted by SIGINT: .*run again to resume at the current task\.$/,
      );
      const after = await runCli(['status', path.join(dir, 'kanban.yaml')]);
      expect(after.stdout).toMatch(/^Supervisor: none running \(the board is not locked\)$/m);
      expect(after.stdout).toMatch(
        new RegExp(
          String.raw`^Last run: .*: interrupted \(Ctrl-C, SIGTERM or a closed terminal\)\. ` +
            String.raw`Run again to resume at the current task \(exit 130\) — Interrupted by SIGINT`,
          'm',
        ),
      );
    },
  );

  it('tells a lock left by a supervisor that died from a running one', async () => {
    const dir = boardWithTasks(1, {});
    const gone = execa('node', ['-e', '']);
    await gone;
    mkdirSync(path.join(dir, '.kanban-supervisor', 'run.lock'), { recursive: true });
    writeFileSync(
      path.join(dir, '.kanban-supervisor', 'run.lock', 'owner.json'),
      JSON.stringify({ pid: gone.pid, host: hostname(), since: '2026-01-02T03:04:05.000Z', board: 'kanban.yaml' }),
    );
    const result = await runCli(['status', path.join(dir, 'kanban.yaml')]);
    expect(result.stdout).toMatch(
      new RegExp(
        `^Supervisor: none running: pid ${gone.pid} \\(since 2026-01-02 \\d\\d:\\d\\d:05\\) ` +
          `is gone and left its lock; the next run takes it over$`,
        'm',
      ),
    );
    expect(result.stdout).toMatch(/^Last run: none recorded/m);
  });

  it('tells a lock whose pid was reused as left, as the next run judges it (by start time)', async () => {
    const dir = boardWithTasks(1, {});
    const bootId = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    const pidNs = readlinkSync('/proc/self/ns/pid');
    // This test's own pid: alive, but started long after the recorded start time.
    const owner = {
      pid: process.pid,
      host: hostname(),
      bootId,
      pidNs,
      startTicks: 1,
      since: '2026-01-02T03:04:05.000Z',
      board: 'kanban.yaml',
    };
    mkdirSync(path.join(dir, '.kanban-supervisor', 'run.lock'), { recursive: true });
    writeFileSync(path.join(dir, '.kanban-supervisor', 'run.lock', 'owner.json'), JSON.stringify(owner));
    const result = await runCli(['status', path.join(dir, 'kanban.yaml')]);
    expect(result.stdout).toMatch(
      new RegExp(
        `^Supervisor: none running: pid ${process.pid} \\(since 2026-01-02 \\d\\d:\\d\\d:05\\) ` +
          `is gone and left its lock`,
        'm',
      ),
    );
  });

  it('tells a lock held on another host and refreshed as running there, one no longer refreshed as left', async () => {
    const dir = boardWithTasks(1, {});
    const lock = path.join(dir, '.kanban-supervisor', 'run.lock');
    mkdirSync(lock, { recursive: true });
    const owner = { pid: 7, host: 'other-host', since: '2026-01-02T03:04:05.000Z', board: 'kanban.yaml' };
    writeFileSync(path.join(lock, 'owner.json'), JSON.stringify(owner));
    const fresh = await runCli(['status', path.join(dir, 'kanban.yaml')]);
    expect(fresh.stdout).toMatch(
      new RegExp(
        String.raw`^Supervisor: running on another host: pid 7 there, on other-host, ` +
          String.raw`since 2026-01-02 \d\d:\d\d:05 \(\S+\); its process cannot be seen from here, ` +
          String.raw`but it refreshed its lock \d+(\.\d)?(ms|s) ago$`,
        'm',
      ),
    );
    const old = new Date(Date.now() - 25_000);
    utimesSync(lock, old, old);
    const silent = await runCli(['status', path.join(dir, 'kanban.yaml')]);
    expect(silent.stdout).toMatch(
      new RegExp(
        String.raw`^Supervisor: none running: pid 7 on other-host \(another container or host, ` +
          String.raw`since 2026-01-02 \d\d:\d\d:05\) has not refreshed its lock for 2[5-9](\.\d)?s, so it is gone; ` +
          String.raw`the next run takes it over$`,
        'm',
      ),
    );
  });

  it.skipIf(process.getuid?.() !== 0)(
    'from a second container, tells a run in another pid namespace as running there, not as killed; ' +
      'once killed, as left',
    async () => {
      const dir = boardWithTasks(1, { 'roles/implementor.md': fixtureRole('scripted.mjs', ['/dev/null', 'hang']) });
      // The supervisor as pid 1 of a pid namespace of its own, as a container runs it (killed with unshare).
      const args = ['--pid', '--fork', '--kill-child=SIGKILL', '--mount-proc', process.execPath, CLI, 'kanban.yaml'];
      const other = execa('unshare', args, {
        cwd: dir,
        reject: false,
        env: { NO_COLOR: '1' },
        stdin: 'ignore',
        timeout: 60_000,
      });
      try {
        const lock = path.join(dir, '.kanban-supervisor', 'run.lock');
        await waitFor(
          () => existsSync(path.join(lock, 'owner.json')) && existsSync(path.join(dir, '.kanban-supervisor', 'runs')),
          'the run to start',
        );
        const running = await runCli(['status', path.join(dir, 'kanban.yaml')]);
        expect(running.stdout).toMatch(
          new RegExp(
            `^Supervisor: running in another container: pid 1 there, on ${hostname()}, since .*, ` +
              `but it refreshed its lock \\d+(\\.\\d)?(ms|s) ago$`,
            'm',
          ),
        );
        expect(running.stdout).toMatch(
          /^Last run: started .*, 1 step\(s\): still running in another container \(\S+ so far\)$/m,
        );
        expect(running.stdout).not.toMatch(/killed or crashed/);

        // pid 1 of the namespace: the kernel then kills the rest of it; its lock is left behind.
        const supervisor = Number(readFileSync(`/proc/${other.pid}/task/${other.pid}/children`, 'utf8').trim());
        process.kill(supervisor, 'SIGKILL');
        await other;
        const old = new Date(Date.now() - 11_000);
        utimesSync(lock, old, old);
        const left = await runCli(['status', path.join(dir, 'kanban.yaml')]);
        expect(left.stdout).toMatch(
          new RegExp(
            // 11 s set back, plus however long `status` takes to start on a loaded machine (seen: 1.1 s).
            String.raw`^Supervisor: none running: pid 1 on .* has not refreshed its lock for 1[1-5](\.\d)?s, ` +
              String.raw`so it is gone; the next run takes it over$`,
            'm',
          ),
        );
        expect(left.stdout).toMatch(/^Last run: .*: no end recorded: the supervisor was killed or crashed\./m);
      } finally {
        other.kill('SIGKILL');
        await other;
      }
    },
  );
});
