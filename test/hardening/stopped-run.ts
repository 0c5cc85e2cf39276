import path from 'node:path';
import { execa } from 'execa';
import { boardWithTasks, CLI, fixtureRole } from '../helpers.js';
import { recordedPids, waitFor } from './procs.js';

/**
 * Run a one-task board whose agent hangs with a grandchild, with `args`; once both run, SIGTERM
 * the supervisor and time how long it takes to end. Returns the board, the result, the time and
 * the agent's pids.
 */
export async function stopWithSigterm(args: string[]) {
  const dir = boardWithTasks(1, {
    'roles/implementor.md': fixtureRole('forever-with-grandchild.mjs', ['pids.jsonl'], 'stdin: none\n'),
  });
  const run = execa('node', [CLI, 'kanban.yaml', ...args], {
    cwd: dir,
    reject: false,
    stdin: 'ignore',
    timeout: 30_000,
    forceKillAfterDelay: false, // execa's own SIGKILL after 5 s would hide how long the stop takes
    env: { NO_COLOR: '1' },
  });
  const pids = () => recordedPids(path.join(dir, 'pids.jsonl'));
  await waitFor(() => pids().length === 2, 'the agent and its grandchild');
  const stopped = performance.now();
  run.kill('SIGTERM');
  const result = await run;
  return { dir, result, tookMs: performance.now() - stopped, agents: pids() };
}
