import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseBoard } from '../../src/board/board.js';
import { parseFrontMatter } from '../../src/util/front-matter.js';
import { boardWithTasks, read, role, runCli } from '../helpers.js';
import { descendants, fixture, processesIn, startCli, waitFor } from './procs.js';

// Enough tasks that the board outlasts the 40 kills: a run gets through a few steps between two of them.
const TASKS = 150;
const KILLS = 40;

/** kanban.yaml parses and validates, and every task file's front-matter reads. */
function expectIntact(dir: string): void {
  const file = path.join(dir, 'kanban.yaml');
  const { board, problems } = parseBoard(file, readFileSync(file, 'utf8'));
  expect(problems).toEqual([]);
  expect(board?.tasks).toHaveLength(TASKS);
  for (const task of board?.tasks ?? []) expect(parseFrontMatter(read(dir, task)).ok).toBe(true);
}

/**
 * kill -9 the supervisor's process group, and (every other time) its agents too: they run
 * in their own groups. An agent left alive is the next run's to stop (agent.json).
 */
function killAll(pid: number, agentsToo: boolean): void {
  const agents = agentsToo ? descendants(pid) : [];
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // already gone
  }
  for (const agent of agents) {
    try {
      process.kill(-agent, 'SIGKILL');
    } catch {
      // its group is gone (or it was a grandchild in a group already killed)
    }
  }
}

describe('crash safety', () => {
  it('keeps a 150-task board valid through dozens of kill -9 at random moments, and runs every task at least once, in order, never skipping one', async () => {
    const dir = boardWithTasks(TASKS, { 'roles/implementor.md': role(['sh', fixture('writes-marker.sh'), 'markers.txt'], 'stdin: none\n') });
    const codes: number[] = [];
    let kills = 0;
    for (let kill = 0; kill < KILLS; kill++) {
      const cli = startCli(['kanban.yaml'], { cwd: dir, detached: true });
      // From before the lock is taken to a few steps in (a start takes ~0.5 s, a step ~0.3 s).
      const delay = 100 + Math.random() * 1200;
      const exited = await Promise.race([cli.then(() => true), new Promise<false>((resolve) => setTimeout(() => resolve(false), delay))]);
      if (!exited) killAll(cli.pid as number, kills++ % 2 === 0);
      const result = await cli;
      if (exited) codes.push(result.exitCode as number);
      expectIntact(dir);
      if (read(dir, 'kanban.yaml').includes('current: null')) break;
    }
    expect(kills).toBeGreaterThanOrEqual(25);
    // A run that ended on its own (not killed) finished the board: nothing was refused or broken.
    expect(codes.every((code) => code === 0)).toBe(true);

    const final = await runCli(['kanban.yaml'], { cwd: dir });
    expect(final.exitCode).toBe(0);
    expectIntact(dir);
    expect(read(dir, 'kanban.yaml')).toMatch(/^current: null$/m);
    expect(read(dir, 'kanban.yaml')).toMatch(/^phase: complete$/m);

    const tasks = Array.from({ length: TASKS }, (_, i) => `tasks/${String(i + 1).padStart(3, '0')}.md`);
    const markers = read(dir, 'markers.txt').trim().split('\n');
    // At least once: every task ran; a crash may have run one again, never skipped one.
    expect([...new Set(markers)]).toEqual(tasks);
    for (const task of tasks) expect(parseFrontMatter(read(dir, task))).toMatchObject({ ok: true, data: { status: 'done' } });
    // No agent outlives the runs, whichever way they ended.
    await waitFor(() => processesIn(dir).length === 0, 'every agent of the board to be gone', 5000);
    expect(readdirSync(dir).filter((name) => /lock|\.tmp$/.test(name))).toEqual([]);
  });
});
