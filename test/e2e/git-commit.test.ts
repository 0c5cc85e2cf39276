import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { boardWithTasks, events, fixtureRole, read, runCli, tempDir } from '../helpers.js';

// git as the tests run it: no person's or system's configuration, so the identity is the repository's own.
function gitEnv(): Record<string, string> {
  const home = tempDir('ks-git-home-');
  writeFileSync(path.join(home, 'gitconfig'), '');
  return { GIT_CONFIG_GLOBAL: path.join(home, 'gitconfig'), GIT_CONFIG_NOSYSTEM: '1', HOME: home };
}

function git(dir: string, env: Record<string, string>, ...args: string[]): string {
  return execFileSync('git', args, { cwd: dir, env: { ...process.env, ...env }, encoding: 'utf8' });
}

/** A board with `n` tasks whose Implementor writes a file, committed as a repository with an identity. */
function repoBoard(n: number, options: { settings?: string; files?: Record<string, string>; identity?: boolean } = {}) {
  const env = gitEnv();
  const dir = boardWithTasks(
    n,
    { 'roles/implementor.md': fixtureRole('writes-file.mjs'), 'notes.txt': 'the person’s notes\n', ...options.files },
    `phase: execute\nsupervisor:\n  git_commit: true\n${options.settings ?? ''}`,
  );
  git(dir, env, 'init', '-q', '-b', 'main');
  if (options.identity !== false) {
    git(dir, env, 'config', 'user.name', 'Night Run');
    git(dir, env, 'config', 'user.email', 'night@example.com');
  } else {
    // No guessing from the host's name either (git would on a host with a domain): no identity at all.
    git(dir, env, 'config', 'user.useConfigOnly', 'true');
  }
  git(dir, env, 'add', '-A');
  git(dir, env, '-c', 'user.name=Setup', '-c', 'user.email=setup@example.com', 'commit', '-q', '-m', 'the board');
  return { dir, env, file: path.join(dir, 'kanban.yaml') };
}

// Each commit after the first: its subject, and the paths it holds.
function commits(dir: string, env: Record<string, string>): Array<{ subject: string; body: string; files: string[] }> {
  const ids = git(dir, env, 'rev-list', '--reverse', 'HEAD').trim().split('\n').slice(1);
  return ids.map((id) => ({
    subject: git(dir, env, 'log', '-1', '--format=%s', id).trim(),
    body: git(dir, env, 'log', '-1', '--format=%b', id),
    files: git(dir, env, 'show', '--name-only', '--format=', id).trim().split('\n').sort(),
  }));
}

describe('supervisor.git_commit: one commit per step', () => {
  it("makes each step one commit naming its task, holding what its agent wrote and the board's change, never the run's own output", async () => {
    const { dir, env, file } = repoBoard(2);
    const result = await runCli([file], { env });
    expect(result.exitCode).toBe(0);
    const made = commits(dir, env);
    expect(made.map((c) => c.subject)).toEqual([
      'tasks/001.md: Implementor ok — wrote work/001.txt',
      'tasks/002.md: Implementor ok — wrote work/002.txt',
    ]);
    // The sequential Manager marks the task done in its front-matter: that is the board's change, with kanban.yaml.
    expect(made[0]?.files).toEqual(['kanban.yaml', 'tasks/001.md', 'work/001.txt']);
    expect(made[1]?.files).toEqual(['kanban.yaml', 'tasks/002.md', 'work/002.txt']);
    expect(made[0]?.body).toMatch(
      /^Manager: ok — tasks\/001\.md is done; next is tasks\/002\.md\nNext task: tasks\/002\.md\nStep: 1\nRun: \S+\n/,
    );
    // Not ignored here, yet never committed: the state folder (and supervisor.log.md) are the supervisor's.
    expect(
      git(dir, env, 'status', '--porcelain', '-uall')
        .trim()
        .split('\n')
        .every((line) => line.startsWith('?? .kanban-supervisor/')),
    ).toBe(true);
    expect(git(dir, env, 'log', '-1', '--format=%an <%ae>').trim()).toBe('Night Run <night@example.com>');
    const committed = events(dir).filter((e) => e.type === 'git_committed');
    expect(committed.map((e) => [e.step, e.task, e.paths])).toEqual([
      [1, 'tasks/001.md', 3],
      [2, 'tasks/002.md', 3],
    ]);
    expect(committed[1]?.commit).toBe(git(dir, env, 'rev-parse', 'HEAD').trim());
    expect(result.stdout).toMatch(/committed [0-9a-f]{12} \(3 paths\)/);
    // The morning's status says what to type to review the night's commits.
    const status = await runCli(['status', file], { env });
    const [first, last] = [committed[0]?.commit, committed[1]?.commit].map((id) => String(id).slice(0, 12));
    expect(status.stdout).toContain(`  committed: 2 step(s), git log -p ${first}^..${last}`);
    // And the report, on the run's line.
    const page = path.join(tempDir(), 'report.html');
    expect((await runCli(['report', file, '--out', page], { env })).exitCode).toBe(0);
    expect(readFileSync(page, 'utf8')).toContain(`committed: 2 step(s), <code>git log -p ${first}^..${last}</code>`);
  });

  it("commits a periodic role's step the same way, naming kanban.yaml and the role", async () => {
    const { dir, env, file } = repoBoard(1, {
      settings: '  periodic:\n    - role: Reviewer\n      every: 1\n',
      files: { 'roles/reviewer.md': fixtureRole('writes-file.mjs') },
    });
    const result = await runCli([file], { env });
    expect(result.exitCode).toBe(0);
    const made = commits(dir, env);
    expect(made.map((c) => c.subject)).toEqual([
      'tasks/001.md: Implementor ok — wrote work/001.txt',
      'kanban.yaml: Reviewer ok — wrote work/Reviewer.txt',
    ]);
    expect(made[1]?.files).toContain('work/Reviewer.txt');
    expect(made[1]?.body).toMatch(/^Step: 2$/m);
  });

  it('leaves a person’s uncommitted changes out of every commit and in the work tree; a path the step changes again is committed whole and said so', async () => {
    const { dir, env, file } = repoBoard(2, {
      files: { 'roles/implementor.md': fixtureRole('writes-file.mjs', ['shared.txt']), 'shared.txt': 'base\n' },
    });
    writeFileSync(path.join(dir, 'notes.txt'), 'the person’s notes\nan edit not yet committed\n');
    writeFileSync(path.join(dir, 'draft.txt'), 'a new file of the person’s\n');
    writeFileSync(path.join(dir, 'shared.txt'), 'base\nthe person’s line\n');
    const result = await runCli([file], { env });
    expect(result.exitCode).toBe(0);
    const made = commits(dir, env);
    expect(made).toHaveLength(2);
    for (const commit of made) expect(commit.files).not.toContain('notes.txt');
    for (const commit of made) expect(commit.files).not.toContain('draft.txt');
    expect(read(dir, 'notes.txt')).toBe('the person’s notes\nan edit not yet committed\n');
    expect(read(dir, 'draft.txt')).toBe('a new file of the person’s\n');
    expect(git(dir, env, 'status', '--porcelain', '--', 'notes.txt', 'draft.txt')).toBe(' M notes.txt\n?? draft.txt\n');
    // The first step touched shared.txt, already changed by the person: both are in its commit, which says so.
    expect(made[0]?.files).toContain('shared.txt');
    expect(made[0]?.body).toContain('These paths had uncommitted changes before this step');
    expect(made[0]?.body).toMatch(/^ {2}shared\.txt$/m);
    expect(git(dir, env, 'show', `HEAD~1:shared.txt`)).toBe('base\nthe person’s line\nImplementor was here\n');
    expect(made[1]?.body).not.toContain('uncommitted changes before');
    expect(read(dir, 'supervisor.log.md')).toMatch(
      / Warning\n[\s\S]*shared\.txt had uncommitted changes before step 1/,
    );
  });

  it('takes an agent’s file names literally: `*`, `:(exclude)…` and `--…` commit only themselves; what the person staged stays staged, uncommitted', async () => {
    const odd = ['*', ':(exclude)work', '--force'];
    const { dir, env, file } = repoBoard(1, { files: { 'roles/implementor.md': fixtureRole('writes-file.mjs', odd) } });
    writeFileSync(path.join(dir, 'keep.txt'), 'the person’s, not to be committed\n');
    writeFileSync(path.join(dir, 'notes.txt'), 'staged by the person\n');
    git(dir, env, 'add', 'notes.txt');
    const result = await runCli([file], { env });
    expect(result.exitCode).toBe(0);
    const [made] = commits(dir, env);
    expect(made?.files).toEqual([...odd, 'kanban.yaml', 'tasks/001.md', 'work/001.txt'].sort());
    expect(git(dir, env, 'diff', '--cached', '--name-only')).toBe('notes.txt\n');
    expect(git(dir, env, 'status', '--porcelain', '--', 'keep.txt')).toBe('?? keep.txt\n');
  });

  it('goes on without commits, saying so in one line, on a board outside any repository (exit 0)', async () => {
    const dir = boardWithTasks(
      1,
      { 'roles/implementor.md': fixtureRole('writes-file.mjs') },
      'phase: execute\nsupervisor:\n  git_commit: true\n',
    );
    const result = await runCli([path.join(dir, 'kanban.yaml')], {
      env: { ...gitEnv(), GIT_CEILING_DIRECTORIES: path.dirname(dir) },
    });
    expect(result.exitCode).toBe(0);
    const said = `${result.stdout}\n${result.stderr}`.split('\n').filter((line) => line.includes('git'));
    expect(said).toHaveLength(1);
    expect(said[0]).toContain(`${dir} is not inside a git repository: the run goes on without commits`);
    expect(read(dir, 'work/001.txt')).toContain('Implementor did tasks/001.md');
  });

  it('refuses to start (exit 2) when git has no identity to commit with, naming the git config fix, before any agent runs', async () => {
    const { dir, env, file } = repoBoard(1, { identity: false });
    const result = await runCli([file], { env });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('git has no identity to commit with');
    expect(result.stderr).toContain('config user.name "Your Name"');
    expect(result.stderr).toContain('config user.email "you@example.com"');
    expect(() => read(dir, 'work/001.txt')).toThrow();
  });

  it('refuses to start (exit 2) in the middle of a merge, which a step’s commit would finish', async () => {
    const { dir, env, file } = repoBoard(1);
    writeFileSync(path.join(dir, '.git', 'MERGE_HEAD'), git(dir, env, 'rev-parse', 'HEAD'));
    const result = await runCli([file], { env });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain(`a merge is in progress in ${dir}`);
    expect(result.stderr).toContain('git merge --abort');
  });

  it("stops with exit 6 and git's words when a pre-commit hook refuses the commit; the board stays as written, a Halt is logged", async () => {
    const { dir, env, file } = repoBoard(2);
    hook(dir, 'pre-commit', '#!/bin/sh\necho "lint: work/001.txt has trailing spaces" >&2\nexit 1\n');
    const result = await runCli([file], { env });
    expect(result.exitCode).toBe(6);
    expect(result.stderr).toContain('lint: work/001.txt has trailing spaces');
    expect(result.stderr).toContain(
      'The commit of step 1 (tasks/001.md: Implementor, 3 path(s)) failed: git commit exited 1: lint: work/001.txt has trailing spaces',
    );
    expect(commits(dir, env)).toHaveLength(0);
    expect(read(dir, 'kanban.yaml')).toMatch(/^current: tasks\/002\.md$/m);
    expect(read(dir, 'work/001.txt')).toContain('Implementor did tasks/001.md');
    expect(read(dir, 'supervisor.log.md')).toMatch(
      / Halt\n[\s\S]*lint: work\/001\.txt has trailing spaces[\s\S]*Stopping \(exit 6\)/,
    );
    expect(events(dir).find((e) => e.type === 'halted')).toMatchObject({ exitCode: 6, reason: 'commit_failed' });
    // The person's index is as it was: nothing of the step is staged.
    expect(git(dir, env, 'diff', '--cached', '--name-only')).toBe('');
  });

  it('stops a hook that hangs at supervisor.git_timeout, with everything it started (exit 6, bounded)', async () => {
    const { dir, env, file } = repoBoard(1, { settings: '  git_timeout: 2s\n  kill_grace: 1s\n' });
    const pids = path.join(tempDir('ks-hook-'), 'pids');
    hook(dir, 'pre-commit', `#!/bin/sh\nsleep 300 &\necho $! >> '${pids}'\necho $$ >> '${pids}'\nwait\n`);
    const started = performance.now();
    const result = await runCli([file], { env });
    expect(result.exitCode).toBe(6);
    expect(performance.now() - started).toBeLessThan(20_000);
    expect(result.stderr).toMatch(
      /git commit ran longer than supervisor\.git_timeout \(2\.0s\) and was stopped with everything it started/,
    );
    const hookPids = readFileSync(pids, 'utf8').trim().split('\n').map(Number);
    expect(hookPids).toHaveLength(2);
    for (const pid of hookPids) expect(alive(pid)).toBe(false);
    expect(read(dir, 'kanban.yaml')).toMatch(/^current: null$/m);
  });
});

describe('--dry-run with supervisor.git_commit', () => {
  it('says whether the step would be a commit, and in which repository, or why not', async () => {
    const { dir, env, file } = repoBoard(1);
    const inRepo = await runCli([file, '--dry-run'], { env });
    expect(inRepo.exitCode).toBe(0);
    expect(inRepo.stdout).toContain(
      `Commits: the step, once the Manager's answer is written, would be one commit in ${dir} (supervisor.git_commit; never pushed).`,
    );
    const json = await runCli([file, '--dry-run', '--json'], { env });
    expect(JSON.parse(json.stdout)).toMatchObject({ git: { commits: true, repository: dir } });
    const outside = boardWithTasks(
      1,
      { 'roles/implementor.md': fixtureRole('writes-file.mjs') },
      'phase: execute\nsupervisor:\n  git_commit: true\n',
    );
    const off = await runCli([path.join(outside, 'kanban.yaml'), '--dry-run'], {
      env: { ...env, GIT_CEILING_DIRECTORIES: path.dirname(outside) },
    });
    expect(off.stdout).toContain(
      `Commits: none (supervisor.git_commit is on, but ${outside} is not inside a git repository).`,
    );
    expect(git(dir, env, 'rev-list', '--count', 'HEAD').trim()).toBe('1');
  });
});

function hook(dir: string, name: string, script: string): void {
  writeFileSync(path.join(dir, '.git', 'hooks', name), script, { mode: 0o755 });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return !/^\S+ \S+ Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/\(.*\)/, 'x'));
  } catch {
    return false;
  }
}
