import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { boardWithTasks, CLI, fixtureRole } from '../helpers.js';
import { recordedPids, survivors, waitFor } from './procs.js';

// Stands for the person's shell, the session leader of the terminal: runs the supervisor in the
// foreground, passes it the SIGHUP a hang-up brings (as a shell does), and records how it ended.
const SHELL = `
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
const child = spawn(process.execPath, process.argv.slice(2), { stdio: 'inherit' });
process.on('SIGHUP', () => child.kill('SIGHUP'));
child.on('exit', (code, signal) => writeFileSync('ended.json', JSON.stringify({ code, signal })));
`;

describe('a lost terminal', () => {
  it('ends the run as an interrupt (exit 129), not 74 nor an abort with a core dump, its agent stopped', async () => {
    const dir = boardWithTasks(
      1,
      {
        'tasks/001.md': '---\nrole: Hanger\n---\nNever ends.\n',
        'roles/hanger.md': fixtureRole('forever-with-grandchild.mjs', ['pids.jsonl'], 'stdin: none\n'),
      },
      'phase: execute\nsupervisor:\n  kill_grace: 1s\n',
    );
    writeFileSync(path.join(dir, 'shell.mjs'), SHELL);
    // `script` gives the run a real pseudo-terminal (its live status line writes to it).
    const terminal = execa('script', ['-qfec', `${process.execPath} shell.mjs ${CLI} kanban.yaml`, '/dev/null'], {
      cwd: dir,
      reject: false,
      env: { ...process.env, CI: '', TERM: 'xterm', NO_COLOR: '1' },
      extendEnv: false,
      stdin: 'ignore',
    });
    await waitFor(() => recordedPids(path.join(dir, 'pids.jsonl')).length === 2, 'the agent to start');
    terminal.kill('SIGKILL'); // the terminal emulator goes: the pty master is closed, the session hung up
    await terminal;
    await waitFor(() => existsSync(path.join(dir, 'ended.json')), 'the run to end');
    const ended = JSON.parse(readFileSync(path.join(dir, 'ended.json'), 'utf8')) as {
      code: number | null;
      signal: string | null;
    };
    expect(ended).toEqual({ code: 129, signal: null });
    expect(readdirSync(dir).filter((name) => /^core/.test(name))).toEqual([]);
    expect(await survivors(recordedPids(path.join(dir, 'pids.jsonl')))).toEqual([]);
  }, 60_000);
});
