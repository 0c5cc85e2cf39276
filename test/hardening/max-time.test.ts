import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { boardWithTasks, events, fixtureRole, read, runCli } from '../helpers.js';
import { recordedPids, survivors } from './procs.js';

/** A one-task board whose Implementor hangs with a grandchild (pids in pids.jsonl), `extra` added to supervisor:. */
function hangingBoard(extra = '') {
  return boardWithTasks(
    1,
    { 'roles/implementor.md': fixtureRole('forever-with-grandchild.mjs', ['pids.jsonl'], 'stdin: none\n') },
    `phase: execute\nsupervisor:\n  kill_grace: 1s\n${extra}`,
  );
}

describe("a batch job's time budget (--max-time)", () => {
  it(
    'ends the run on time like an interrupt: exit 124, the limit named, the agent and its grandchild gone, ' +
      'the board unchanged; a re-run resumes',
    async () => {
      const dir = hangingBoard();
      const before = read(dir, 'kanban.yaml');
      const started = performance.now();
      const result = await runCli(['kanban.yaml', '--max-time', '3s'], { cwd: dir });
      const took = performance.now() - started;
      expect(result.exitCode).toBe(124);
      expect(result.stderr.trim()).toMatch(
        new RegExp(
          String.raw`^kanban-supervisor: The run reached its time limit of 3\.0s \(--max-time or ` +
            String.raw`supervisor\.max_time\): whatever was running was stopped\. The board is unchanged; ` +
            String.raw`run again to resume at the current task\.$`,
        ),
      );
      // 3 s, then SIGTERM to the agent's group (which obeys it): well before another few seconds pass.
      expect(took).toBeGreaterThan(3_000);
      expect(took).toBeLessThan(12_000);
      const pids = recordedPids(path.join(dir, 'pids.jsonl'));
      expect(pids).toHaveLength(2);
      expect(await survivors(pids)).toEqual([]);
      expect(read(dir, 'kanban.yaml')).toBe(before);
      expect(events(dir).at(-1)).toMatchObject({ type: 'interrupted', exitCode: 124, reason: 'time_limit' });
      expect(events(dir).find((e) => e.type === 'attempt_finished')).toMatchObject({
        end: 'interrupted',
        killedWith: 'SIGTERM',
      });
      expect(existsSync(path.join(dir, '.kanban-supervisor', 'run.lock'))).toBe(false);

      writeFileSync(
        path.join(dir, 'roles/implementor.md'),
        fixtureRole('exits-before-reading.mjs', [], 'stdin: none\n'),
      );
      const again = await runCli(['kanban.yaml', '--max-time', '1h'], { cwd: dir });
      expect(again.exitCode).toBe(0);
      expect(
        events(dir)
          .filter((e) => e.type === 'step_started')
          .map((e) => e.task),
      ).toEqual(['tasks/001.md', 'tasks/001.md']);
    },
  );

  it('takes supervisor.max_time from the board, and --max-time over it', async () => {
    const dir = hangingBoard('  max_time: 2s\n');
    const fromBoard = await runCli(['kanban.yaml'], { cwd: dir });
    expect(fromBoard.exitCode).toBe(124);
    expect(fromBoard.stderr).toContain('time limit of 2.0s');
    const fromFlag = await runCli(['kanban.yaml', '--max-time', '1s'], { cwd: dir });
    expect(fromFlag.exitCode).toBe(124);
    expect(fromFlag.stderr).toContain('time limit of 1.0s');
  });

  it('refuses a malformed --max-time or supervisor.max_time with exit 2 and an example', async () => {
    const dir = hangingBoard('  max_time: soon\n');
    const flag = await runCli(['kanban.yaml', '--max-time', 'later'], { cwd: dir });
    expect(flag.exitCode).toBe(2);
    expect(flag.stderr).toMatch(/--max-time/);
    const board = await runCli(['validate'], { cwd: dir });
    expect(board.exitCode).toBe(2);
    expect(board.stdout).toMatch(/max_time/);
  });
});

describe('durations out of range', () => {
  it('an absurd --max-time is exit 2 with the range before any agent runs, not a limit "reached" at once', async () => {
    const dir = hangingBoard();
    const result = await runCli(['kanban.yaml', '--max-time', '9999999999999h'], { cwd: dir });
    expect(result.exitCode).toBe(2);
    expect(result.stderr.trim()).toBe(
      'kanban-supervisor: --max-time must be a duration from 1ms to 365d (got "9999999999999h").',
    );
    expect(existsSync(path.join(dir, 'pids.jsonl'))).toBe(false);
    // A month-long run is legitimate.
    const month = await runCli(['kanban.yaml', '--max-time', '30d', '--dry-run'], { cwd: dir });
    expect(month.exitCode).toBe(0);
  });

  it("a role's timeout or a board's git_timeout past one timer is exit 2 naming file, line and range", async () => {
    const dir = hangingBoard('  git_timeout: 30d\n');
    writeFileSync(
      path.join(dir, 'roles/implementor.md'),
      fixtureRole('forever-with-grandchild.mjs', ['pids.jsonl'], 'stdin: none\ntimeout: 99999999d\n'),
    );
    const gitTimeout = 'kanban.yaml:4: supervisor.git_timeout must be a duration from 1ms to 24d (got "30d").';
    const roleTimeout =
      'roles/implementor.md:4: front-matter timeout must be a duration from 1ms to 24d (got "99999999d").';
    const validate = await runCli(['validate'], { cwd: dir });
    expect(validate.exitCode).toBe(2);
    expect(validate.stdout).toContain(gitTimeout);
    expect(validate.stdout).toContain(roleTimeout);
    const run = await runCli(['kanban.yaml'], { cwd: dir });
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain(gitTimeout);
    writeFileSync(path.join(dir, 'kanban.yaml'), read(dir, 'kanban.yaml').replace('  git_timeout: 30d\n', ''));
    const again = await runCli(['kanban.yaml'], { cwd: dir });
    expect(again.exitCode).toBe(2);
    expect(again.stderr).toContain(roleTimeout);
    expect(existsSync(path.join(dir, 'pids.jsonl'))).toBe(false);
  });
});

describe('a usage limit and the time budget', () => {
  it(
    "a limit that resets after the run's --max-time ends the run at once with exit 69 and the reset time, " +
      'without waiting',
    async () => {
      const failures = 'failures:\n  usage_limit: ["limit reached, resets (?:at |in )(?<reset>\\\\S+)$"]\n';
      const dir = boardWithTasks(
        1,
        {
          'roles/implementor.md': fixtureRole(
            'scripted.mjs',
            ['record.jsonl', 'json:limit reached, resets in 2h'],
            `stdin: none\n${failures}`,
          ),
        },
        'phase: execute\n',
      );
      const before = read(dir, 'kanban.yaml');
      const started = performance.now();
      const result = await runCli(['kanban.yaml', '--max-time', '1h'], { cwd: dir, timeout: 30_000 });
      expect(result.exitCode, result.stderr).toBe(69);
      expect(result.stderr).toMatch(
        new RegExp(
          String.raw`usage limit resets at .* \(in 2h00m\), later than this run's time limit \(--max-time or ` +
            String.raw`supervisor\.max_time\) ends it at .*\. The board is unchanged; run again after `,
        ),
      );
      expect(performance.now() - started).toBeLessThan(15_000);
      expect(read(dir, 'kanban.yaml')).toBe(before);
      expect(read(dir, 'supervisor.log.md')).toMatch(/past the run's time limit/);
    },
  );
});
