import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { boardWithTasks, events, role, runCli } from '../helpers.js';
import { fixture, isRunning, recordedPids, startCli, survivors, waitFor } from './procs.js';

/**
 * An agent that leaves four processes outside its process group (setsid, detached, set -m, double fork),
 * then replies or hangs.
 */
function escaping(then: 'reply' | 'hang'): string {
  const after = then === 'reply' ? `echo '{"status":"ok","message":"done"}'` : 'exec sleep 300';
  return role(['sh', '-c', `bash ${fixture('leaves-escapees.sh')} pids.jsonl; ${after}`], 'stdin: none\n');
}

function board(then: 'reply' | 'hang', settings = '') {
  return boardWithTasks(
    1,
    { 'roles/implementor.md': escaping(then) },
    `phase: execute\nsupervisor:\n  kill_grace: 1s\n${settings}`,
  );
}

const pidsOf = (dir: string) => recordedPids(path.join(dir, 'pids.jsonl'));

describe("processes that leave the agent's process group or session", () => {
  it('are stopped when the attempt ends with a valid reply', async () => {
    const dir = board('reply');
    const result = await runCli(['kanban.yaml'], { cwd: dir });
    expect(result.exitCode).toBe(0);
    expect(pidsOf(dir)).toHaveLength(4);
    expect(await survivors(pidsOf(dir))).toEqual([]);
  });

  it('are stopped when the attempt times out', async () => {
    const dir = board('hang', '  timeout: 2s\n  max_retries: 0\n');
    const result = await runCli(['kanban.yaml'], { cwd: dir });
    expect(result.exitCode).toBe(3);
    expect(result.stderr).toMatch(/timed out after 2\.0s/);
    expect(pidsOf(dir)).toHaveLength(4);
    expect(await survivors(pidsOf(dir))).toEqual([]);
  });

  it('are stopped on Ctrl-C (SIGINT), which exits 130', async () => {
    const dir = board('hang');
    const cli = startCli(['kanban.yaml'], { cwd: dir });
    await waitFor(() => pidsOf(dir).length === 4, 'the escapees to start');
    cli.kill('SIGINT');
    expect((await cli).exitCode).toBe(130);
    expect(await survivors(pidsOf(dir))).toEqual([]);
  });

  it('are stopped by the next run after the supervisor was killed with kill -9, found by their tag', async () => {
    const dir = board('hang');
    const cli = startCli(['kanban.yaml'], { cwd: dir, detached: true });
    await waitFor(() => pidsOf(dir).length === 4, 'the escapees to start');
    process.kill(-(cli.pid as number), 'SIGKILL'); // the supervisor's group only: its agent runs in a group of its own
    await cli;
    const left = pidsOf(dir);
    expect(left.filter(isRunning)).toEqual(left);

    writeFileSync(
      path.join(dir, 'roles/implementor.md'),
      role(['sh', '-c', `echo '{"status":"ok","message":"done"}'`], 'stdin: none\n'),
    );
    const again = await runCli(['kanban.yaml'], { cwd: dir });
    expect(again.exitCode).toBe(0);
    expect(await survivors(left)).toEqual([]);
    expect(events(dir).find((e) => e.type === 'run_started' && e.stoppedLeftoverAgent)).toMatchObject({
      stoppedLeftoverAgent: { role: 'Implementor', task: 'tasks/001.md' },
    });
  });
});

describe('an agent that replies and exits while a child of its own still holds its stdout', () => {
  it(
    'is judged when it exits: the reply counts even though the holder would outlive the timeout, ' +
      'and the holder is stopped',
    async () => {
      // It replies and exits at about 1.5 s of a 3 s timeout; its child keeps stdout open for a minute.
      const agent = role(
        ['sh', '-c', `(exec sleep 60) & echo $! > holder.pid; sleep 1.5; echo '{"status":"ok","message":"done"}'`],
        'stdin: none\n',
      );
      const dir = boardWithTasks(
        1,
        { 'roles/implementor.md': agent },
        'phase: execute\nsupervisor:\n  timeout: 3s\n  kill_grace: 1s\n',
      );
      const result = await runCli(['kanban.yaml'], { cwd: dir });
      expect(result.exitCode).toBe(0);
      expect(events(dir).find((e) => e.type === 'attempt_finished' && e.role === 'Implementor')).toMatchObject({
        end: 'exited',
        valid: true,
      });
      expect(await survivors(recordedPids(path.join(dir, 'holder.pid')))).toEqual([]);
    },
  );
});
