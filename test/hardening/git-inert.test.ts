import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { beforeAll, describe, expect, it } from 'vitest';
import { commits, git, husky, huskyOn, repoBoard } from '../git-boards.js';
import { CLI, events, pathWithoutUs, role, SEQUENTIAL_MANAGER, tempDir } from '../helpers.js';
import { OWNER, reachableByAll } from './fenced-users.js';
import { processesIn, waitFor } from './procs.js';

// A fence needs bubblewrap; as root (as CI runs) it is also where a fence is easiest to get wrong.
const FENCE = process.getuid?.() === 0 && existsSync('/usr/bin/bwrap');

/** A role whose agent runs `script` with sh, `extra` front-matter lines added; its reply says ok. */
function shRole(script: string, extra = ''): string {
  return role(['sh', '-c', `${script}\necho '{"status":"ok","message":"done"}'`], `stdin: none\n${extra}`);
}

/**
 * A fenced agent runs as the board folder's owner, never root: the board is given to OWNER, its Manager fenced
 * too (it writes the task files), and root's git told the repository is safe (another user's otherwise).
 */
function ownedByAgent(dir: string, env: Record<string, string>): void {
  appendFileSync(env.GIT_CONFIG_GLOBAL as string, '[safe]\n\tdirectory = *\n');
  execFileSync('chown', ['-R', `${OWNER}:${OWNER}`, dir]);
}
const FENCED_MANAGER = SEQUENTIAL_MANAGER.replace('stdin: json\n', 'stdin: json\nsandbox: true\n');

describe.skipIf(!FENCE)('the supervisor’s git when a role is fenced', () => {
  beforeAll(() => reachableByAll([process.execPath, CLI]));
  it('runs no hook, not even husky 9’s `.husky/pre-commit` the agent rewrote; the step is committed', async () => {
    const marks = path.join(tempDir('ks-marks-'), 'hook-ran');
    const { dir, env, file } = repoBoard(1, {
      files: {
        ...husky('exit 0\n'),
        // The fence's /tmp is a fresh one: the agent cannot make the mark itself, an unfenced hook can.
        'roles/implementor.md': shRole(`printf 'touch ${marks}\\n' > .husky/pre-commit`, 'sandbox: true\n'),
        'roles/manager.md': FENCED_MANAGER,
      },
    });
    huskyOn(dir, env);
    ownedByAgent(dir, env);
    const result = await execa('node', [CLI, file], {
      reject: false,
      env: { ...env, NO_COLOR: '1', PATH: pathWithoutUs() },
    });
    expect(result.stderr).toBe('');
    expect(result.exitCode).toBe(0);
    expect(git(dir, env, 'show', 'HEAD:.husky/pre-commit')).toBe(`touch ${marks}\n`);
    expect(existsSync(marks)).toBe(false);
    expect(commits(dir, env)).toHaveLength(1);
  });

  it(
    'refuses to start (exit 2) when git would read configuration from the board folder, ' +
      'where a fenced agent can write it',
    async () => {
      const { dir, env, file } = repoBoard(1, {
        files: { 'roles/implementor.md': shRole('echo ran > ran.txt', 'sandbox: true\n') },
      });
      // Not there yet: a fenced agent could write it, and git would include it at the next command.
      git(dir, env, 'config', 'include.path', '../team.gitconfig');
      ownedByAgent(dir, env);
      const result = await execa('node', [CLI, file], { reject: false, env: { ...env, PATH: pathWithoutUs() } });
      expect(result.exitCode).toBe(2);
      expect(result.stderr).toContain(
        `supervisor.git_commit is on and a role is fenced, but git reads its configuration from ` +
          `${path.join(dir, 'team.gitconfig')}, in the board folder`,
      );
      expect(result.stderr).toContain('Move it out of the board folder');
      expect(existsSync(path.join(dir, 'ran.txt'))).toBe(false);
    },
  );
});

describe('a terabyte sparse file made during a step', () => {
  // No disk is used; read whole, it would take hours.
  const board = () =>
    repoBoard(1, {
      files: { 'roles/implementor.md': shRole('truncate -s 1T big.bin') },
      settings: '  kill_grace: 1s\n',
    });
  const start = (file: string, env: Record<string, string>, args: string[] = []) =>
    execa('node', [CLI, file, ...args], {
      reject: false,
      env: { ...env, NO_COLOR: '1', PATH: pathWithoutUs() },
      timeout: 40_000,
    });

  it('does not hold off SIGTERM: the run ends within seconds (exit 143), nothing of git left running', async () => {
    const { dir, env, file } = board();
    const cli = start(file, env);
    try {
      await waitFor(
        () =>
          existsSync(path.join(dir, '.kanban-supervisor/events.jsonl')) &&
          events(dir).some((e) => e.type === 'board_written'),
        'the step’s answer to be written',
      );
      await new Promise((resolve) => setTimeout(resolve, 1_000)); // the commit is under way
      const signalled = performance.now();
      cli.kill('SIGTERM');
      const result = await Promise.race([cli, new Promise<null>((resolve) => setTimeout(() => resolve(null), 10_000))]);
      expect(performance.now() - signalled).toBeLessThan(5_000);
      expect(result?.exitCode).toBe(143);
      expect(processesIn(dir)).toEqual([]);
      // Stopped in the middle of the step's commit: the answer written, the commit not made.
      expect(commits(dir, env)).toEqual([]);
    } finally {
      cli.kill('SIGKILL');
      await cli;
    }
  });

  it('does not hold off --max-time: the run ends at its limit (exit 124)', async () => {
    const { dir, env, file } = board();
    const started = performance.now();
    const result = await start(file, env, ['--max-time', '4s']);
    expect(result.exitCode).toBe(124);
    expect(performance.now() - started).toBeLessThan(12_000);
    expect(events(dir).some((e) => e.type === 'board_written')).toBe(true);
    expect(commits(dir, env)).toEqual([]);
    expect(processesIn(dir)).toEqual([]);
  });
});
