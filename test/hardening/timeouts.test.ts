import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { boardWithTasks, events, fixtureRole, read, runCli } from '../helpers.js';
import { recordedPids, survivors } from './procs.js';

const BOARD = 'phase: execute\nsupervisor:\n  kill_grace: 1s\n';

/** Run a one-task board whose Implementor is a fixture agent (its pid file is pids.jsonl in the board folder). */
async function runBoard(agent: string, args: string[], roleExtra: string, flags: string[] = [], header = BOARD) {
  const dir = boardWithTasks(
    1,
    { 'roles/implementor.md': fixtureRole(agent, args, `stdin: none\n${roleExtra}`) },
    header,
  );
  const before = read(dir, 'kanban.yaml');
  const started = Date.now();
  const result = await runCli(['kanban.yaml', ...flags], { cwd: dir });
  return { dir, pidFile: path.join(dir, 'pids.jsonl'), before, result, seconds: (Date.now() - started) / 1000 };
}

const finished = (dir: string) => events(dir).filter((e) => e.type === 'attempt_finished');

describe('timeouts and process groups', () => {
  it(
    'kills a hanging agent and the sleeping grandchild it forked at a 1 s timeout, retries it, ' +
      'and exits 3 with no process left',
    async () => {
      const { dir, pidFile, before, result, seconds } = await runBoard(
        'forever-with-grandchild.mjs',
        ['pids.jsonl'],
        'timeout: 1s\n',
        ['--max-retries', '1'],
      );
      expect(result.exitCode).toBe(3);
      expect(result.stderr).toMatch(
        new RegExp(
          String.raw`Implementor gave no valid reply for tasks\/001\.md in 2 attempt\(s\); ` +
            String.raw`the last one timed out after 1\.0s and was killed with SIGTERM`,
        ),
      );
      const pids = recordedPids(pidFile);
      expect(pids).toHaveLength(4); // two attempts, each a leader and a grandchild
      expect(await survivors(pids)).toEqual([]);
      expect(finished(dir).map((e) => [e.end, e.killedWith])).toEqual([
        ['timeout', 'SIGTERM'],
        ['timeout', 'SIGTERM'],
      ]);
      expect(read(dir, 'supervisor.log.md')).toMatch(
        /\*\*Issue:\*\* Invalid output format: Implementor \(.*\) timed out after 1\.0s and was killed with SIGTERM/,
      );
      expect(read(dir, 'kanban.yaml')).toBe(before);
      expect(seconds).toBeLessThan(20);
    },
  );

  it('kills an agent that ignores SIGTERM, and its grandchild, with SIGKILL once kill_grace has passed', async () => {
    const { dir, pidFile, result, seconds } = await runBoard('ignores-sigterm.mjs', ['pids.jsonl'], 'timeout: 1s\n', [
      '--max-retries',
      '0',
    ]);
    expect(result.exitCode).toBe(3);
    expect(result.stderr).toMatch(/timed out after 1\.0s and was killed with SIGKILL/);
    expect(finished(dir)[0]).toMatchObject({ end: 'timeout', killedWith: 'SIGKILL', signal: 'SIGKILL' });
    expect(await survivors(recordedPids(pidFile))).toEqual([]);
    expect(seconds).toBeGreaterThanOrEqual(2); // 1 s timeout + 1 s grace
  });

  it.each([
    ['dies on SIGTERM', [], 'SIGTERM'],
    ['ignores SIGTERM', ['--ignore-term'], 'SIGKILL'],
  ])(
    'takes the reply of an agent that exits leaving a grandchild on its stdout (which %s), and stops that grandchild',
    async (_, extra, killedWith) => {
      const { dir, pidFile, result } = await runBoard(
        'exits-grandchild-holds-stdout.mjs',
        ['pids.jsonl', ...extra],
        'timeout: 30s\n',
      );
      expect(result.exitCode).toBe(0);
      expect(finished(dir).find((e) => e.role === 'Implementor')).toMatchObject({
        end: 'exited',
        valid: true,
        killedWith,
      });
      const pids = recordedPids(pidFile);
      expect(pids).toHaveLength(2);
      expect(await survivors(pids)).toEqual([]);
    },
  );

  it('stops an agent that goes silent for idle_timeout, but not one that is slow and keeps printing', async () => {
    const [silent, chatty] = await Promise.all([
      runBoard('silent-after-hello.mjs', ['pids.jsonl'], 'idle_timeout: 1s\n', ['--max-retries', '0']),
      runBoard('chatty-then-reply.mjs', ['2500'], 'idle_timeout: 1s\n'),
    ]);
    expect(silent.result.exitCode).toBe(3);
    expect(silent.result.stderr).toMatch(
      /the last one printed nothing for 1\.0s \(idle_timeout\) and was killed with SIGTERM/,
    );
    expect(finished(silent.dir)[0]).toMatchObject({ end: 'idle-timeout' });
    expect(await survivors(recordedPids(silent.pidFile))).toEqual([]);
    expect(chatty.result.exitCode).toBe(0);
    expect(finished(chatty.dir)[0]).toMatchObject({ end: 'exited', valid: true });
    expect(chatty.seconds).toBeGreaterThan(2.5);
  });

  it('takes the timeout from the role file, else --timeout, else supervisor.timeout, else 30 minutes', async () => {
    const withBoard = (timeout: string) => `phase: execute\nsupervisor:\n  kill_grace: 1s\n  timeout: ${timeout}\n`;
    const runs = await Promise.all([
      runBoard(
        'silent-after-hello.mjs',
        ['pids.jsonl'],
        'timeout: 1s\n',
        ['--max-retries', '0', '--timeout', '1m'],
        withBoard('2m'),
      ),
      runBoard(
        'silent-after-hello.mjs',
        ['pids.jsonl'],
        '',
        ['--max-retries', '0', '--timeout', '1s'],
        withBoard('2m'),
      ),
      runBoard('silent-after-hello.mjs', ['pids.jsonl'], '', ['--max-retries', '0'], withBoard('1s')),
      runBoard('exits-before-reading.mjs', [], ''),
    ]);
    const timeouts = runs.map(({ dir }) => events(dir).find((e) => e.type === 'attempt_started')?.timeoutMs);
    expect(timeouts).toEqual([1000, 1000, 1000, 30 * 60_000]);
    expect(runs.map((r) => r.result.exitCode)).toEqual([3, 3, 3, 0]);
    for (const { dir } of runs.slice(0, 3)) expect(finished(dir)[0]).toMatchObject({ end: 'timeout' });
  });

  it('treats the longest timeout a timer can hold (24d) as very long, not as already over', async () => {
    const { dir, result } = await runBoard('chatty-then-reply.mjs', ['400'], 'timeout: 24d\n');
    expect(result.exitCode).toBe(0);
    expect(finished(dir)[0]).toMatchObject({ end: 'exited', valid: true });
  });

  it('refuses a timeout longer than a timer can hold (1000h) with the range, before any agent runs', async () => {
    const { dir, result } = await runBoard('chatty-then-reply.mjs', ['400'], 'timeout: 1000h\n');
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toMatch(
      /roles\/implementor\.md:\d+: .*timeout must be a duration from 1ms to 24d \(got "1000h"\)/,
    );
    expect(existsSync(path.join(dir, '.kanban-supervisor'))).toBe(false); // nothing ran, nothing was written
  });
});
