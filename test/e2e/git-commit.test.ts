import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { commits, git, gitEnv, husky, huskyOn, repoBoard } from '../git-boards.js';
import { boardWithTasks, events, fixtureRole, read, role, runCli, tempDir } from '../helpers.js';

describe('supervisor.git_commit: one commit per step', () => {
  it(
    "makes each step one commit naming its task, holding what its agent wrote and the board's change, " +
      "never the run's own output",
    async () => {
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
        new RegExp(
          String.raw`^Manager: ok — tasks\/001\.md is done; next is tasks\/002\.md\n` +
            String.raw`Next task: tasks\/002\.md\nStep: 1\nRun: \S+\n`,
        ),
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
    },
  );

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

  it(
    'leaves a person’s uncommitted changes out of every commit and in the work tree; ' +
      'a path the step changes again is committed whole and said so',
    async () => {
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
      expect(git(dir, env, 'status', '--porcelain', '--', 'notes.txt', 'draft.txt')).toBe(
        ' M notes.txt\n?? draft.txt\n',
      );
      // The first step touched shared.txt, already changed by the person: both are in its commit, which says so.
      expect(made[0]?.files).toContain('shared.txt');
      expect(made[0]?.body).toContain('These paths had uncommitted changes before this step');
      expect(made[0]?.body).toMatch(/^ {2}shared\.txt$/m);
      expect(git(dir, env, 'show', `HEAD~1:shared.txt`)).toBe('base\nthe person’s line\nImplementor was here\n');
      expect(made[1]?.body).not.toContain('uncommitted changes before');
      expect(read(dir, 'supervisor.log.md')).toMatch(
        / Warning\n[\s\S]*shared\.txt had uncommitted changes before step 1/,
      );
    },
  );

  it(
    'takes an agent’s file names literally: `*`, `:(exclude)…` and `--…` commit only themselves; ' +
      'what the person staged stays staged, uncommitted',
    async () => {
      const odd = ['*', ':(exclude)work', '--force'];
      const { dir, env, file } = repoBoard(1, {
        files: { 'roles/implementor.md': fixtureRole('writes-file.mjs', odd) },
      });
      writeFileSync(path.join(dir, 'keep.txt'), 'the person’s, not to be committed\n');
      writeFileSync(path.join(dir, 'notes.txt'), 'staged by the person\n');
      git(dir, env, 'add', 'notes.txt');
      const result = await runCli([file], { env });
      expect(result.exitCode).toBe(0);
      const [made] = commits(dir, env);
      expect(made?.files).toEqual([...odd, 'kanban.yaml', 'tasks/001.md', 'work/001.txt'].sort());
      expect(git(dir, env, 'diff', '--cached', '--name-only')).toBe('notes.txt\n');
      expect(git(dir, env, 'status', '--porcelain', '--', 'keep.txt')).toBe('?? keep.txt\n');
    },
  );

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

  it(
    'refuses to start (exit 2) when git has no identity to commit with, naming the git config fix, ' +
      'before any agent runs',
    async () => {
      const { dir, env, file } = repoBoard(1, { identity: false });
      const result = await runCli([file], { env });
      expect(result.exitCode).toBe(2);
      expect(result.stderr).toContain('git has no identity to commit with');
      expect(result.stderr).toContain('config user.name "Your Name"');
      expect(result.stderr).toContain('config user.email "you@example.com"');
      expect(() => read(dir, 'work/001.txt')).toThrow();
    },
  );

  it('refuses to start (exit 2) in the middle of a merge, which a step’s commit would finish', async () => {
    const { dir, env, file } = repoBoard(1);
    writeFileSync(path.join(dir, '.git', 'MERGE_HEAD'), git(dir, env, 'rev-parse', 'HEAD'));
    const result = await runCli([file], { env });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain(`a merge is in progress in ${dir}`);
    expect(result.stderr).toContain('git merge --abort');
  });

  it(
    "stops with exit 6 and git's words when a pre-commit hook refuses the commit; the board stays as written, " +
      'a Halt is logged',
    async () => {
      const { dir, env, file } = repoBoard(2);
      hook(dir, 'pre-commit', '#!/bin/sh\necho "lint: work/001.txt has trailing spaces" >&2\nexit 1\n');
      const result = await runCli([file], { env });
      expect(result.exitCode).toBe(6);
      expect(result.stderr).toContain('lint: work/001.txt has trailing spaces');
      expect(result.stderr).toContain(
        'The commit of step 1 (tasks/001.md: Implementor, 3 path(s)) failed: git commit exited 1: lint: ' +
          'work/001.txt has trailing spaces',
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
    },
  );

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

describe("the supervisor's git runs nothing an agent wrote", () => {
  it(
    'leaves a repository an agent made inside the board out of the commit, says so in its body and a Warning, ' +
      'and never runs its fsmonitor',
    async () => {
      const marks = path.join(tempDir('ks-marks-'), 'fsmonitor-ran');
      // Step 1 makes sub/, a repository with a commit, whose core.fsmonitor is a script of its own.
      const plant = [
        'if [ ! -d sub ]; then',
        '  git init -q sub && echo inner > sub/inner.txt && git -C sub add inner.txt',
        '  git -C sub -c user.name=A -c user.email=a@example.com commit -q -m inner',
        `  printf '#!/bin/sh\\necho "$@" >> ${marks}\\n' > sub/.monitor && chmod +x sub/.monitor`,
        '  git -C sub config core.fsmonitor "$PWD/sub/.monitor"',
        'fi',
        'echo step >> work.txt',
        'echo \'{"status":"ok","message":"worked"}\'',
      ].join('\n');
      const { dir, env, file } = repoBoard(2, {
        files: { 'roles/implementor.md': role(['sh', '-c', plant], 'stdin: none\n') },
      });
      const result = await runCli([file], { env });
      expect(result.exitCode).toBe(0);
      expect(existsSync(marks)).toBe(false);
      const made = commits(dir, env);
      expect(made.map((c) => c.files)).toEqual([
        ['kanban.yaml', 'tasks/001.md', 'work.txt'],
        ['kanban.yaml', 'tasks/002.md', 'work.txt'],
      ]);
      expect(made[0]?.body).toMatch(/^Left out of this commit: git repositories of their own, made during this step/m);
      expect(made[0]?.body).toMatch(/^ {2}sub\/$/m);
      expect(made[1]?.body).not.toContain('Left out');
      expect(git(dir, env, 'ls-files', '--stage', '--', 'sub')).toBe('');
      expect(read(dir, 'supervisor.log.md')).toMatch(
        new RegExp(
          String.raw` Warning\n[\s\S]*sub\/: made during step 1, a git repository of its own that the repository ` +
            String.raw`does not know as a submodule, left out of commit [0-9a-f]{12}`,
        ),
      );
      expect(events(dir).find((e) => e.type === 'git_committed')).toMatchObject({ step: 1, leftOut: ['sub/'] });
    },
  );

  it(
    'does not take a .git an agent planted in the board folder, inside the repository holding the board, ' +
      'as the repository: the next run refuses (exit 2), naming both and the fix',
    async () => {
      const outer = tempDir('ks-outer-');
      const env = gitEnv();
      const marks = path.join(tempDir('ks-marks-'), 'hook-ran');
      // The agent plants a repository of the board folder's own, with an identity and a hook.
      const plant = [
        'git init -q . && git config user.name Planted && git config user.email planted@example.com',
        `printf '#!/bin/sh\\ntouch ${marks}\\n' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit`,
        'echo \'{"status":"ok","message":"planted"}\'',
      ].join('\n');
      const made = boardWithTasks(
        1,
        { 'roles/implementor.md': role(['sh', '-c', plant], 'stdin: none\n') },
        'phase: execute\nsupervisor:\n  git_commit: true\n',
      );
      const board = path.join(outer, 'board');
      cpSync(made, board, { recursive: true });
      git(outer, env, 'init', '-q', '-b', 'main');
      git(outer, env, 'config', 'user.name', 'Night Run');
      git(outer, env, 'config', 'user.email', 'night@example.com');
      git(outer, env, 'add', '-A');
      git(outer, env, 'commit', '-q', '-m', 'the board');
      const file = path.join(board, 'kanban.yaml');
      const first = await runCli([file], { env });
      expect(first.exitCode).toBe(0);
      expect(existsSync(path.join(board, '.git', 'HEAD'))).toBe(true);
      expect(git(outer, env, 'log', '-1', '--format=%s').trim()).toBe('tasks/001.md: Implementor ok — planted');
      // The person puts the task back on the board; the planted repository is still there.
      writeFileSync(
        file,
        read(board, 'kanban.yaml')
          .replace(/^current: .*$/m, 'current: tasks/001.md')
          .replace(/^phase: .*$/m, 'phase: execute'),
      );
      const second = await runCli([file], { env });
      expect(second.exitCode).toBe(2);
      expect(second.stderr).toContain(
        `the board folder is a git repository of its own (${board}/.git) ` +
          `inside the repository ${outer} (${outer}/.git), which holds the board's files and does not know it as a ` +
          `submodule`,
      );
      expect(second.stderr).toContain(`remove it (rm -rf "${board}/.git") and run again`);
      expect(existsSync(marks)).toBe(false);
      expect(() => git(board, env, 'rev-parse', '-q', '--verify', 'HEAD')).toThrow();
    },
  );

  it('uses a repository of the board’s own inside another that never held the board, as always', async () => {
    const outer = tempDir('ks-outer-');
    const env = gitEnv();
    git(outer, env, 'init', '-q', '-b', 'main');
    const { dir, file } = repoBoard(1);
    const board = path.join(outer, 'board');
    cpSync(dir, board, { recursive: true });
    const result = await runCli([path.join(board, path.basename(file))], { env });
    expect(result.exitCode).toBe(0);
    expect(commits(board, env).map((c) => c.subject)).toEqual(['tasks/001.md: Implementor ok — wrote work/001.txt']);
  });

  it('never starts a git found in the board folder, even first on PATH', async () => {
    const marks = path.join(tempDir('ks-marks-'), 'git-ran');
    const { dir, env, file } = repoBoard(1, {
      files: { 'bin/git': `#!/bin/sh\ntouch ${marks}\nexec /usr/bin/git "$@"\n` },
    });
    execFileSync('chmod', ['+x', path.join(dir, 'bin/git')]);
    const result = await runCli([file], { env: { ...env, PATH: `${dir}/bin:${process.env.PATH ?? ''}` } });
    expect(result.exitCode).toBe(0);
    expect(existsSync(marks)).toBe(false);
    expect(commits(dir, env)).toHaveLength(1);
  });

  it("runs the person's own hooks (husky 9's layout) when no role is fenced", async () => {
    const marks = path.join(tempDir('ks-marks-'), 'hook-ran');
    const { dir, env, file } = repoBoard(1, { files: husky(`touch ${marks}\n`) });
    huskyOn(dir, env);
    const result = await runCli([file], { env });
    expect(result.exitCode).toBe(0);
    expect(existsSync(marks)).toBe(true);
    expect(commits(dir, env)).toHaveLength(1);
  });
});

describe('--dry-run with supervisor.git_commit', () => {
  it('says whether the step would be a commit, and in which repository, or why not', async () => {
    const { dir, env, file } = repoBoard(1);
    const inRepo = await runCli([file, '--dry-run'], { env });
    expect(inRepo.exitCode).toBe(0);
    expect(inRepo.stdout).toContain(
      `Commits: the step, once the Manager's answer is written, would be one commit in ${dir} ` +
        `(supervisor.git_commit; never pushed).`,
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
