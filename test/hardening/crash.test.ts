import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseDocument, type YAMLSeq } from 'yaml';
import { parseBoard } from '../../src/board/read-board.js';
import { parseFrontMatter } from '../../src/board/front-matter.js';
import { boardWithTasks, read, role, runCli } from '../helpers.js';
import { descendants, fixture, processesIn, startCli, waitFor } from './procs.js';

const KILLS = 40;
// Tasks left from the current one on, before each start: more than a run gets through before
// its kill (a few steps on this machine, a dozen on a fast one), so that none ends on its own;
// the last run finishes these, however many the 40 runs got through.
const AHEAD = 30;

/** The same "random" kill moments on every run of the test (mulberry32), so a failure can be replayed. */
function moments(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** kanban.yaml parses and validates, lists `tasks`, and every task file's front-matter reads. */
function expectIntact(dir: string, tasks: string[]): void {
  const file = path.join(dir, 'kanban.yaml');
  const { board, problems } = parseBoard(file, readFileSync(file, 'utf8'));
  expect(problems).toEqual([]);
  expect(board?.tasks).toEqual(tasks);
  for (const task of tasks) expect(parseFrontMatter(read(dir, task)).ok).toBe(true);
}

const taskFile = (i: number) => `tasks/${String(i).padStart(3, '0')}.md`;

/**
 * Between two runs, as a person may: add tasks at the end of the board until AHEAD are left
 * from the current one on. Returns every task of the board.
 */
function topUp(dir: string): string[] {
  const file = path.join(dir, 'kanban.yaml');
  const doc = parseDocument(readFileSync(file, 'utf8'));
  const list = doc.get('tasks') as YAMLSeq<string>;
  const tasks = list.toJSON() as string[];
  const left = tasks.length - tasks.indexOf(String(doc.get('current')));
  for (let i = tasks.length + 1; i <= tasks.length + AHEAD - left; i++) {
    writeFileSync(path.join(dir, taskFile(i)), `---\ntitle: task ${i}\n---\nTask ${i}.\n`);
    list.add(taskFile(i));
  }
  writeFileSync(file, doc.toString());
  return list.toJSON() as string[];
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
  it(
    'keeps a board valid through 40 kill -9 at scattered moments (tasks added between runs), ' +
      'and runs every task at least once, in order, never skipping one',
    { timeout: 240_000 },
    async () => {
      const dir = boardWithTasks(AHEAD, {
        'roles/implementor.md': role(['sh', fixture('writes-marker.sh'), 'markers.txt'], 'stdin: none\n'),
      });
      const random = moments(20261123);
      let tasks: string[] = [];
      for (let kill = 0; kill < KILLS; kill++) {
        tasks = topUp(dir);
        const cli = startCli(['kanban.yaml'], { cwd: dir, detached: true });
        // From before the lock is taken to a few steps in (a start takes ~0.5 s, a step ~0.3 s).
        const delay = 100 + random() * 1200;
        const exited = await Promise.race([
          cli.then(() => true),
          new Promise<false>((resolve) => setTimeout(() => resolve(false), delay)),
        ]);
        // A run that ends on its own before its kill finished the board early: the test needs more tasks ahead.
        if (exited) {
          const r = await cli;
          expect(exited, `run ${kill} ended before it was killed: ${r.exitCode} ${r.stdout} ${r.stderr}`).toBe(false);
        }
        killAll(cli.pid as number, kill % 2 === 0);
        await cli;
        expectIntact(dir, tasks);
      }

      const final = await runCli(['kanban.yaml'], { cwd: dir, timeout: 180_000 });
      expect(final.exitCode, final.stderr).toBe(0);
      expectIntact(dir, tasks);
      expect(read(dir, 'kanban.yaml')).toMatch(/^current: null$/m);
      expect(read(dir, 'kanban.yaml')).toMatch(/^phase: complete$/m);

      expect(tasks).toEqual(Array.from({ length: tasks.length }, (_, i) => taskFile(i + 1)));
      const markers = read(dir, 'markers.txt').trim().split('\n');
      // At least once: every task ran; a crash may have run one again, never skipped one.
      expect([...new Set(markers)]).toEqual(tasks);
      for (const task of tasks)
        expect(parseFrontMatter(read(dir, task))).toMatchObject({ ok: true, data: { status: 'done' } });
      // No agent outlives the runs, whichever way they ended.
      await waitFor(() => processesIn(dir).length === 0, 'every agent of the board to be gone', 5000);
      expect(readdirSync(dir).filter((name) => /lock|\.tmp$/.test(name))).toEqual([]);
    },
  );
});
