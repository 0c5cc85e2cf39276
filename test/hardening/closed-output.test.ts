import { existsSync } from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { boardWithTasks, CLI, events, fixtureRole, read, role } from '../helpers.js';
import { recordedPids, survivors, waitFor } from './procs.js';

/** Two tasks: the first done at once, the second by an agent (and its grandchild) that never ends. */
function board(): string {
  return boardWithTasks(
    2,
    {
      'roles/implementor.md': role(['sh', '-c', `echo '{"status":"ok","message":"done"}'`], 'stdin: none\n'),
      'tasks/002.md': '---\nrole: Hanger\n---\nNever ends.\n',
      'roles/hanger.md': fixtureRole('forever-with-grandchild.mjs', ['pids.jsonl'], 'stdin: none\n'),
    },
    'phase: execute\nsupervisor:\n  kill_grace: 1s\n',
  );
}

const lockFree = (dir: string) => !existsSync(path.join(dir, '.kanban-supervisor', 'run.lock'));

describe('output the supervisor can no longer write', () => {
  it(
    'stops the run in order when the reader of its output pipe goes away (`| head -1`): exit 74, no agent left, ' +
      'the board unchanged',
    async () => {
      const dir = board();
      // One JSON line per event; `head -1` leaves after the first while the first step's lines follow,
      // and the second task's agent never ends: only the stop can end the run.
      const result = await execa('sh', ['-c', `node ${CLI} kanban.yaml --json | head -1`], {
        cwd: dir,
        reject: false,
        timeout: 30_000,
        env: { NO_COLOR: '1' },
      });
      expect(result.exitCode).toBe(0);
      expect(JSON.parse(result.stdout)).toMatchObject({ type: 'run_started' });
      await waitFor(() => lockFree(dir), 'the run to end');
      const last = events(dir).at(-1);
      expect(last).toMatchObject({ type: 'interrupted', exitCode: 74, reason: 'output_closed' });
      expect(String(last?.message)).toMatch(
        /^stdout was closed under the run \(EPIPE\): the running agent and everything it started were stopped/,
      );
      expect(await survivors(recordedPids(path.join(dir, 'pids.jsonl')))).toEqual([]);
      // Stopped within the first step (the pipe closed at once): its answer is not written.
      expect(read(dir, 'kanban.yaml')).toMatch(/^current: tasks\/001\.md$/m);
    },
  );

  it(
    'stops the run when its terminal is lost (the pty master closed): exit 129 recorded, no agent left, ' +
      'the lock freed',
    async () => {
      const dir = board();
      const terminal = execa('script', ['-qfec', `node ${CLI} kanban.yaml`, '/dev/null'], {
        cwd: dir,
        reject: false,
        env: { ...process.env, CI: '', TERM: 'xterm', NO_COLOR: '1' },
        extendEnv: false,
        stdin: 'ignore',
      });
      await waitFor(() => recordedPids(path.join(dir, 'pids.jsonl')).length === 2, 'the agent to start');
      terminal.kill('SIGKILL'); // the terminal emulator goes: the kernel hangs up the session
      await terminal;
      await waitFor(() => lockFree(dir), 'the run to end');
      // The kernel sends SIGHUP (129) and fails the next write with EIO (74): whichever comes first ends the run.
      expect(events(dir).at(-1)).toMatchObject({ type: 'interrupted', exitCode: expect.toBeOneOf([129, 74]) });
      expect(await survivors(recordedPids(path.join(dir, 'pids.jsonl')))).toEqual([]);
      expect(read(dir, 'kanban.yaml')).toMatch(/^current: tasks\/002\.md$/m);
    },
  );
});
