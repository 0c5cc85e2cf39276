import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { boardWithTasks, fixtureRole, role, runCli } from '../helpers.js';
import { isRunning, recordedPids, startCli, survivors, waitFor } from './procs.js';

/** The run's task is done by an agent that never ends; `try` has one of those (Hanger) and a quick one (Quick). */
function board(): string {
  return boardWithTasks(
    1,
    {
      'tasks/001.md': '---\nrole: Runner\n---\nNever ends.\n',
      'roles/runner.md': fixtureRole('forever-with-grandchild.mjs', ['run-pids.jsonl'], 'stdin: none\n'),
      'roles/hanger.md': fixtureRole('forever-with-grandchild.mjs', ['try-pids.jsonl'], 'stdin: none\n'),
      'roles/quick.md': role(['sh', '-c', `echo '{"status":"ok","message":"done"}'`], 'stdin: none\n'),
    },
    'phase: execute\nsupervisor:\n  kill_grace: 1s\n',
  );
}

const tryRecords = (dir: string) =>
  readdirSync(path.join(dir, '.kanban-supervisor/try')).filter((name) => name.startsWith('agent-'));

describe('try beside a run', () => {
  it('keeps records of its own: a run started mid-try leaves its agent alone, and a try mid-run works', async () => {
    const dir = board();
    const trying = startCli(['try', 'Hanger', '--instruction', 'wait'], { cwd: dir });
    await waitFor(() => recordedPids(path.join(dir, 'try-pids.jsonl')).length === 2, "try's agent to start");

    // The run takes over only its own record: try's agent keeps running.
    const running = startCli(['run', 'kanban.yaml'], { cwd: dir });
    await waitFor(() => recordedPids(path.join(dir, 'run-pids.jsonl')).length === 2, "the run's agent to start");
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(recordedPids(path.join(dir, 'try-pids.jsonl')).filter(isRunning)).toHaveLength(2);
    expect(tryRecords(dir)).toHaveLength(1);

    // A second try while the run's agent runs: no clash with the run's record.
    const quick = await runCli(['try', 'Quick', '--instruction', 'go'], { cwd: dir });
    expect(quick.stderr).not.toMatch(/agent\.json/);
    expect(quick.exitCode).toBe(0);
    expect(existsSync(path.join(dir, '.kanban-supervisor/agent.json'))).toBe(true); // the run's, untouched
    expect(recordedPids(path.join(dir, 'run-pids.jsonl')).filter(isRunning)).toHaveLength(2);

    running.kill('SIGTERM');
    trying.kill('SIGTERM');
    expect((await running).exitCode).toBe(143);
    expect((await trying).exitCode).toBe(143);
    expect(
      await survivors([
        ...recordedPids(path.join(dir, 'run-pids.jsonl')),
        ...recordedPids(path.join(dir, 'try-pids.jsonl')),
      ]),
    ).toEqual([]);
    expect(tryRecords(dir)).toEqual([]);
  }, 60_000);

  it('stops what a crashed try left running at the next try', async () => {
    const dir = board();
    const trying = startCli(['try', 'Hanger', '--instruction', 'wait'], { cwd: dir });
    await waitFor(() => recordedPids(path.join(dir, 'try-pids.jsonl')).length === 2, "try's agent to start");
    trying.kill('SIGKILL'); // the agent runs in its own group: it outlives the try
    await trying;
    const left = recordedPids(path.join(dir, 'try-pids.jsonl'));
    expect(left.filter(isRunning)).toHaveLength(2);

    const quick = await runCli(['try', 'Quick', '--instruction', 'go'], { cwd: dir });
    expect(quick.exitCode).toBe(0);
    expect(await survivors(left)).toEqual([]);
    expect(tryRecords(dir)).toEqual([]);
  }, 60_000);
});
