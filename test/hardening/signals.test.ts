import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { boardWithTasks, events, fixtureRole, read, runCli } from '../helpers.js';
import { isRunning, recordedPids, startCli, survivors, waitFor } from './procs.js';

/** A one-task board whose `agentRole` runs `agent` (pid file pids.jsonl in the board folder). */
function boardWith(agentRole: 'implementor' | 'manager', agent: string, grace = '1s') {
  return boardWithTasks(
    1,
    { [`roles/${agentRole}.md`]: fixtureRole(agent, ['pids.jsonl'], 'stdin: none\n') },
    `phase: execute\nsupervisor:\n  kill_grace: ${grace}\n`,
  );
}

/** Start a run, and wait until its agent (leader and grandchild) is running. */
async function startRunWithAgent(dir: string) {
  const cli = startCli(['kanban.yaml'], { cwd: dir });
  const pidFile = path.join(dir, 'pids.jsonl');
  await waitFor(() => recordedPids(pidFile).length === 2, 'the agent and its grandchild to start');
  return { cli, pids: recordedPids(pidFile) };
}

describe('signals to the supervisor', () => {
  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
    ['SIGHUP', 129],
  ] as const)(
    'on %s stops the agent and its grandchild, leaves the board unchanged, logs interrupted, ' +
      'exits %i and frees the lock',
    async (signal, code) => {
      const dir = boardWith('implementor', 'forever-with-grandchild.mjs');
      const before = read(dir, 'kanban.yaml');
      const { cli, pids } = await startRunWithAgent(dir);
      process.kill(cli.pid as number, signal);
      const result = await cli;
      expect(result.exitCode).toBe(code);
      expect(result.stderr.trim()).toMatch(
        new RegExp(
          `^kanban-supervisor: Interrupted by ${signal}: the running agent and everything it started were ` +
            `stopped\\. The board is unchanged`,
        ),
      );
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(await survivors(pids)).toEqual([]);
      expect(read(dir, 'kanban.yaml')).toBe(before);
      expect(events(dir).at(-1)).toMatchObject({ type: 'interrupted', exitCode: code });
      expect(events(dir).find((e) => e.type === 'attempt_finished')).toMatchObject({
        end: 'interrupted',
        killedWith: 'SIGTERM',
      });
      expect(existsSync(path.join(dir, '.kanban-supervisor', 'run.lock'))).toBe(false);
      expect(existsSync(path.join(dir, '.kanban-supervisor', 'agent.json'))).toBe(false);

      // An immediate re-run is not refused by the lock, and resumes at the same task.
      writeFileSync(
        path.join(dir, 'roles/implementor.md'),
        fixtureRole('exits-before-reading.mjs', [], 'stdin: none\n'),
      );
      const again = await runCli(['kanban.yaml'], { cwd: dir });
      expect(again.exitCode).toBe(0);
      expect(
        events(dir)
          .filter((e) => e.type === 'step_started')
          .map((e) => e.task),
      ).toEqual(['tasks/001.md', 'tasks/001.md']);
    },
  );

  it('writes nothing to the board when interrupted while the Manager runs', async () => {
    const dir = boardWith('manager', 'forever-with-grandchild.mjs');
    writeFileSync(path.join(dir, 'roles/implementor.md'), fixtureRole('exits-before-reading.mjs', [], 'stdin: none\n'));
    const before = read(dir, 'kanban.yaml');
    const { cli, pids } = await startRunWithAgent(dir);
    process.kill(cli.pid as number, 'SIGTERM');
    expect((await cli).exitCode).toBe(143);
    expect(await survivors(pids)).toEqual([]);
    expect(read(dir, 'kanban.yaml')).toBe(before);
    expect(events(dir).some((e) => e.type === 'board_written')).toBe(false);
  });

  it('on a second Ctrl-C kills an agent that ignores SIGTERM at once instead of waiting out kill_grace', async () => {
    const dir = boardWith('implementor', 'ignores-sigterm.mjs', '60s');
    const { cli, pids } = await startRunWithAgent(dir);
    process.kill(cli.pid as number, 'SIGINT');
    // The first Ctrl-C only sent SIGTERM, which this agent ignores: it is still there.
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(pids.filter(isRunning)).toEqual(pids);
    expect(isRunning(cli.pid as number)).toBe(true);
    const second = Date.now();
    process.kill(cli.pid as number, 'SIGINT');
    const result = await cli;
    expect(result.exitCode).toBe(130);
    expect(Date.now() - second).toBeLessThan(10_000);
    expect(await survivors(pids)).toEqual([]);
    expect(events(dir).find((e) => e.type === 'attempt_finished')).toMatchObject({
      end: 'interrupted',
      killedWith: 'SIGKILL',
    });
  });
});
