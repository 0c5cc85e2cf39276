import { EventEmitter } from 'node:events';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import type { Hook } from '../../src/hooks/hook.js';
import { runHook } from '../../src/hooks/run-hook.js';
import { CLI, makeBoard, tempDir } from '../helpers.js';
import { isRunning, survivors, waitFor } from './procs.js';
import { stopWithSigterm } from './stopped-run.js';

// A hook that starts a child that never ends, records both pids, then never ends either.
const HANGING = `sh -c 'sleep 300 & echo $! > kid.pid; echo $$ > hook.pid; sleep 300'`;
const pid = (dir: string, name: string) => Number(readFileSync(path.join(dir, name), 'utf8'));
const done = { kind: 'done' as const, exitCode: 0, message: 'Done.' };

describe('hooks are run as agents are', () => {
  it('a hook killed at its timeout takes its children with it: `run … 2>&1 | cat` ends', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'kanban.yaml');
    const started = performance.now();
    const warning = await runHook(
      {
        flag: '--on-complete',
        argv: ['sh', '-c', 'sleep 300 & echo $! > kid.pid; echo $$ > hook.pid; sleep 300'],
        program: '/bin/sh',
      },
      done,
      { file, run: 'r', steps: 0, task: '' },
      process.env,
      { timeoutMs: 500, graceMs: 500 },
    );
    expect(warning).toMatch(
      /^--on-complete command \(sh -c .*\) was stopped after 0\.5s, with everything it started\.$/,
    );
    expect(performance.now() - started).toBeLessThan(5000);
    expect(await survivors([pid(dir, 'kid.pid'), pid(dir, 'hook.pid')])).toEqual([]);

    // Through the CLI, output piped: the pipe closes once the run and its hook are done.
    const board = makeBoard({ 'kanban.yaml': 'current: null\ntasks: []\n' });
    const hook = path.join(board, 'hook.sh');
    writeFileSync(hook, '#!/bin/sh\nsleep 300 &\necho $! > kid.pid\nexit 0\n', { mode: 0o755 });
    const piped = await execa('sh', ['-c', `node ${CLI} kanban.yaml --on-complete ./hook.sh 2>&1 | cat`], {
      cwd: board,
      reject: false,
      timeout: 30_000,
      env: { NO_COLOR: '1' },
    });
    expect(piped.timedOut).toBe(false);
    expect(piped.exitCode).toBe(0);
    expect(isRunning(pid(board, 'kid.pid'))).toBe(false);
  }, 60_000);

  it('SIGTERM to the supervisor during a hook stops it and its children; the run keeps its exit code', async () => {
    const dir = makeBoard({ 'kanban.yaml': 'current: null\ntasks: []\n' });
    const run = execa('node', [CLI, 'kanban.yaml', '--on-complete', HANGING], {
      cwd: dir,
      reject: false,
      stdin: 'ignore',
      timeout: 30_000,
      env: { NO_COLOR: '1' },
    });
    await waitFor(() => {
      try {
        return pid(dir, 'hook.pid') > 0 && pid(dir, 'kid.pid') > 0;
      } catch {
        return false;
      }
    }, 'the hook to start');
    run.kill('SIGTERM');
    const result = await run;
    expect(result.exitCode).toBe(0); // the board was done: a notification stopped does not change that
    expect(result.stderr).toMatch(
      /warning: --on-complete command \(sh -c .*\) was stopped by SIGTERM, with everything it started\./,
    );
    expect(await survivors([pid(dir, 'kid.pid'), pid(dir, 'hook.pid')])).toEqual([]);
  }, 60_000);

  it(
    'after SIGTERM stopped the run, a hanging --on-halt hook gets 2 s: the stop ends within 5 s, ' +
      'the hook and its children gone',
    async () => {
      const { dir, result, tookMs } = await stopWithSigterm(['--on-halt', HANGING]);
      expect(tookMs).toBeLessThan(5_000);
      expect(result.exitCode).toBe(143);
      expect(result.stderr).toMatch(
        /warning: --on-halt command \(sh -c .*\) was stopped after 2s, with everything it started\./,
      );
      expect(await survivors([pid(dir, 'kid.pid'), pid(dir, 'hook.pid')])).toEqual([]);
    },
    60_000,
  );

  it(
    'a signal while the hook is still starting stops it once it runs (the supervisor is not killed, ' +
      'the hook not left behind)',
    async () => {
      const dir = tempDir();
      const signals = new EventEmitter();
      const hook: Hook = {
        flag: '--on-complete',
        argv: ['sh', '-c', 'sleep 300 & echo $! > kid.pid; echo $$ > hook.pid; sleep 300'],
        program: '/bin/sh',
      };
      const pending = runHook(
        hook,
        done,
        { file: path.join(dir, 'kanban.yaml'), run: 'r', steps: 0, task: '' },
        process.env,
        { signals, timeoutMs: 20_000, graceMs: 500 },
      );
      signals.emit('SIGTERM', 'SIGTERM'); // before the hook's 'spawn' event
      expect(await pending).toMatch(/was stopped by SIGTERM, with everything it started\.$/);
      const started = ['kid.pid', 'hook.pid'].filter((name) => existsSync(path.join(dir, name)));
      expect(await survivors(started.map((name) => pid(dir, name)))).toEqual([]);
    },
    30_000,
  );

  it('a NUL in the outcome reaches the hook cleaned (shown as U+FFFD, as on the console), instead of making spawn() throw', async () => {
    const dir = tempDir();
    const halted = { kind: 'halted_for_human' as const, exitCode: 4, message: 'The Manager said: stop\0here.' };
    const warning = await runHook(
      { flag: '--on-halt', argv: ['sh', '-c', 'printf %s "$KANBAN_MESSAGE" > message.txt'], program: '/bin/sh' },
      halted,
      { file: path.join(dir, 'kanban.yaml'), run: 'r', steps: 1, task: 'tasks/001.md\0' },
      { ...process.env, ODD: 'a\0b' },
    );
    expect(warning).toBeNull();
    expect(readFileSync(path.join(dir, 'message.txt'), 'utf8')).toBe('The Manager said: stop\ufffdhere.');
  });
});

describe('a NUL in a Manager message, end to end', () => {
  it('halts for a person with exit 4 and runs --on-halt with the message, the NUL removed', async () => {
    const manager =
      `printf '%s\\n' '{"status":"blocked","message":"stop\\u0000here",` +
      `"next_task":null,"tasks":["tasks/001.md"]}'`;
    const dir = makeBoard({
      'kanban.yaml': 'phase: execute\ncurrent: tasks/001.md\ntasks:\n  - tasks/001.md\n',
      'tasks/001.md': '---\ntitle: one\n---\nDo it.\n',
      'roles/implementor.md':
        `---\ncommand: ["sh", "-c", "echo '{\\"status\\":\\"ok\\",\\"message\\":\\"done\\"}'"]\nstdin: none\n---\n` +
        `Do it.\n`,
      'roles/manager.md': `---\ncommand: ["sh", "-c", ${JSON.stringify(manager)}]\nstdin: none\n---\nDecide.\n`,
    });
    const result = await execa(
      'node',
      [CLI, 'kanban.yaml', '--on-halt', `sh -c 'printf %s "$KANBAN_MESSAGE" > halted.txt'`],
      { cwd: dir, reject: false, stdin: 'ignore', timeout: 30_000, env: { NO_COLOR: '1' } },
    );
    expect(result.stderr).not.toMatch(/a bug|internal error/i);
    expect(result.exitCode).toBe(4);
    expect(readFileSync(path.join(dir, 'halted.txt'), 'utf8')).toMatch(/stophere/);
  }, 60_000);
});
