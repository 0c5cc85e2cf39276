import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ROOT, SEQUENTIAL_MANAGER, makeBoard, role, tempDir } from '../helpers.js';
import { filesHolding, gitServer, type GitServer } from './git-server.js';
import { fakeGitHubApi, type FakeGitHubApi } from './github-api.js';
import { runStep, step, type Workflow } from './runner.js';

// recipes/github-actions/nightly.yml's shell steps, run here as a runner would (test/docker/runner.ts)
// against a private repository served on 127.0.0.1 that moves during the run, and a stand-in for
// GitHub's REST API (test/docker/github-api.ts) on 127.0.0.1 as GITHUB_API_URL. The `uses:` steps
// are done by the test: actions/checkout (persist-credentials: false) by a clone whose login is
// not kept, the artifact by a copy, and the install by kanban-supervisor on PATH running the
// image built from the Dockerfile (`docker run`), as the runner's global install would run it.
const IMAGE = process.env.KS_DOCKER_IMAGE ?? 'kanban-supervisor-test/app';
const workflow = parse(readFileSync(path.join(ROOT, 'recipes/github-actions/nightly.yml'), 'utf8')) as Workflow;
const LOGIN = { username: 'x-access-token', password: 'ghs_test-token-8d3e' };
const label = `ks-gha-${process.pid}`;
const REPOSITORY = 'owner/board';
let server: GitServer | undefined;
let api: FakeGitHubApi | undefined;

afterEach(async () => {
  const { stdout } = await execa('docker', ['ps', '-aq', '--filter', `label=${label}`]);
  if (stdout) await execa('docker', ['rm', '-f', ...stdout.split('\n')], { reject: false });
  await server?.close();
  await api?.close();
  server = undefined;
  api = undefined;
});

// Async: the git server runs in this process, and a git that talks to it must not block it.
const git = async (dir: string, ...args: string[]) =>
  (await execa('git', ['-C', dir, ...args], { stdin: 'ignore' })).stdout.trim();
const basic = Buffer.from(`${LOGIN.username}:${LOGIN.password}`).toString('base64');
const header = `http.extraHeader=Authorization: Basic ${basic}`;

/** A private repository (main) holding a two-task board (with `git_commit: true` unless told), and its API. */
async function repository(gitCommit = true) {
  const board = makeBoard({
    'kanban.yaml':
      'phase: execute\ncurrent: tasks/001.md\ntasks:\n  - tasks/001.md\n  - tasks/002.md\n' +
      (gitCommit ? 'supervisor:\n  git_commit: true\n' : ''),
    'tasks/001.md': '---\ntitle: first\n---\nFirst.\n',
    'tasks/002.md': '---\ntitle: second\n---\nSecond.\n',
    'roles/manager.md': SEQUENTIAL_MANAGER,
    'roles/implementor.md': role(
      ['sh', '-c', 'echo "$KANBAN_TASK_FILE" >> work.txt && echo \'{"status":"ok","message":"done"}\''],
      'stdin: none\n',
    ),
    '.gitignore': '.kanban-supervisor/\n',
  });
  await git(board, 'init', '-q', '-b', 'main');
  await git(board, 'add', '-A');
  await git(board, '-c', 'user.name=Person', '-c', 'user.email=person@example.com', 'commit', '-qm', 'The board');
  const repos = tempDir('ks-repos-');
  const bare = path.join(repos, 'board.git');
  execFileSync('git', ['clone', '-q', '--bare', board, bare]);
  server = await gitServer(repos, LOGIN);
  api = await fakeGitHubApi(REPOSITORY, LOGIN.password, (branch) => git(bare, 'rev-parse', `refs/heads/${branch}`));
  return { bare, url: `${server.url}board.git`, api };
}

/** A person's commit pushed to `branch` (main unless told) while the night runs or between nights. */
async function personPushes(url: string, files: Record<string, string>, branch = 'main'): Promise<void> {
  const clone = path.join(tempDir('ks-person-'), 'board');
  await execa('git', ['-c', header, 'clone', '-q', '--branch', branch, url, clone]);
  for (const [file, text] of Object.entries(files)) writeFileSync(path.join(clone, file), text);
  await git(clone, 'add', ...Object.keys(files));
  await git(
    clone,
    '-c',
    'user.name=Person',
    '-c',
    'user.email=person@example.com',
    'commit',
    '-qm',
    `A person's ${Object.keys(files).join(', ')}`,
  );
  await git(clone, '-c', header, 'push', '-q', 'origin', branch);
}

/** A runner: its temp folder, its variables, and kanban-supervisor on PATH as `docker run` of the image. */
function runner() {
  const temp = tempDir('ks-runner-');
  const bin = path.join(temp, 'bin');
  mkdirSync(bin);
  const pass = [
    'GIT_AUTHOR_NAME',
    'GIT_AUTHOR_EMAIL',
    'GIT_COMMITTER_NAME',
    'GIT_COMMITTER_EMAIL',
    'ANTHROPIC_API_KEY',
  ];
  writeFileSync(
    path.join(bin, 'kanban-supervisor'),
    `#!/bin/sh\nexec docker run --rm --label ${label} --network none -v "$PWD:$PWD" -w "$PWD" ` +
      `-v "$RUNNER_TEMP:$RUNNER_TEMP" ${pass.map((name) => `-e ${name}`).join(' ')} ${IMAGE} "$@"\n`,
    { mode: 0o755 },
  );
  const vars = {
    PATH: `${bin}:${process.env.PATH}`,
    HOME: temp,
    RUNNER_TEMP: temp,
    GITHUB_REF_NAME: 'main',
    GITHUB_RUN_ID: '4242',
    GITHUB_REPOSITORY: REPOSITORY,
    GITHUB_SERVER_URL: 'https://github.example',
    GITHUB_API_URL: api!.url,
  };
  return { temp, vars };
}

/** actions/checkout of one commit, as the recipe's `ref:` asks, its login not kept. */
async function checkout(url: string, temp: string, ref: string): Promise<string> {
  const workspace = path.join(temp, 'workspace');
  mkdirSync(workspace);
  await git(workspace, 'init', '-q');
  await git(workspace, 'remote', 'add', 'origin', url);
  await git(workspace, '-c', header, 'fetch', '-q', '--depth', '1', 'origin', ref);
  await git(workspace, 'checkout', '-q', '--detach', 'FETCH_HEAD');
  return workspace;
}

/** The `start` job's step: where the night starts and the last night's history, as GITHUB_SHA is main's tip. */
async function startJob(bare: string) {
  const { temp, vars } = runner();
  const sha = await git(bare, 'rev-parse', 'main');
  const context = { github: { ref_name: 'main', token: LOGIN.password } };
  const ran = await runStep(workflow, step(workflow, 'start', "Where the night starts, and the last night's history"), {
    cwd: temp,
    context,
    runner: { ...vars, GITHUB_SHA: sha },
  });
  return { ...ran, history: path.join(temp, 'history') };
}

/**
 * The `run` job from the start job's outputs: checkout, the check, the history, the run, the
 * report, bundle and history, the outcome (the steps after a failed one are not run).
 */
async function runJob(url: string, start: { outputs: Record<string, string>; history: string }) {
  const { temp, vars } = runner();
  const workspace = await checkout(url, temp, start.outputs.ref!);
  if (start.outputs.history === 'true') cpSync(start.history, path.join(temp, 'history'), { recursive: true });
  const context: Record<string, unknown> = { secrets: { ANTHROPIC_API_KEY: '' }, runner: { temp }, steps: {} };
  const ran: Record<string, Awaited<ReturnType<typeof runStep>>> = {};
  const names = [
    'Check that the board commits every step',
    ...(start.outputs.history === 'true' ? ["Restore the board's history"] : []),
    'Run the board',
    "The report, the night's commits as a bundle, and the board's history",
    'Outcome',
  ];
  for (const name of names) {
    const s = step(workflow, 'run', name);
    ran[name] = await runStep(workflow, s, { cwd: workspace, context, runner: vars });
    if (s.id) (context.steps as Record<string, unknown>)[s.id] = { outputs: ran[name].outputs };
    if (ran[name].exitCode !== 0) break;
  }
  return {
    workspace,
    night: path.join(temp, 'night'),
    history: path.join(temp, 'history-out'),
    ran,
    base: ran['Run the board']?.outputs.base ?? '',
  };
}

/** The `push` job on a fresh runner: checkout of the night's base, the artifact, the push step. */
async function pushJob(url: string, base: string, artifact: string, pull = '') {
  const { temp, vars } = runner();
  const workspace = await checkout(url, temp, base);
  cpSync(artifact, path.join(temp, 'night'), { recursive: true });
  const context = {
    github: { ref_name: 'main', token: LOGIN.password },
    secrets: { KANBAN_PUSH_TOKEN: '' },
    needs: { run: { outputs: { base } }, start: { outputs: { pull } } },
  };
  const pushed = await runStep(
    workflow,
    step(workflow, 'push', "Push the night's commits and open their pull request"),
    {
      cwd: workspace,
      context,
      runner: vars,
    },
  );
  return { pushed, workspace };
}

/** The artifact `kanban-history` of a night as GitHub serves it: a zip of the folder uploaded. */
function zipOf(folder: string): Buffer {
  const out = path.join(tempDir('ks-zip-'), 'artifact.zip');
  execFileSync('zip', ['-qrj', out, '.'], { cwd: folder });
  return readFileSync(out);
}

const subjects = async (bare: string, range: string) => (await git(bare, 'log', '--format=%s', range)).split('\n');

describe('the GitHub Actions recipe, its shell steps run here', () => {
  it("opens a pull request from kanban-supervisor/nightly; the next night carries on from it, with the last night's history", async () => {
    const { bare, url, api } = await repository();
    const first = await startJob(bare);
    expect(first.exitCode, first.stderr).toBe(0);
    expect(first.outputs).toEqual({ ref: await git(bare, 'rev-parse', 'main') });
    const night = await runJob(url, first);
    expect(night.ran['Check that the board commits every step']!.stdout).toMatch(/^Each step will be a commit in /);
    expect(night.ran['Run the board']!.outputs['exit-code']).toBe('0');
    // One commit per step, made by git in the image (docker run), on the checked-out commit.
    expect((await git(night.workspace, 'log', '--format=%an %s', `${night.base}..HEAD`)).split('\n')).toEqual([
      expect.stringMatching(/^kanban-supervisor tasks\/002\.md: Implementor ok/),
      expect.stringMatching(/^kanban-supervisor tasks\/001\.md: Implementor ok/),
    ]);
    expect(night.ran.Outcome!.exitCode).toBe(0);
    expect(readdirSync(night.night).sort()).toEqual(['night.bundle', 'report-files', 'report.html', 'run.jsonl']);
    expect(readdirSync(night.history)).toEqual(['kanban-history.tar.gz']);
    // The run job's checkout kept no login: none anywhere the agents worked.
    expect(filesHolding(night.workspace, LOGIN.password)).toEqual([]);
    expect(readFileSync(path.join(night.workspace, '.git/config'), 'utf8')).not.toMatch(/extraheader|credential/i);

    await personPushes(url, { 'notes.md': 'Written while the board ran.\n' });
    const main = await git(bare, 'rev-parse', 'main');
    const before = server!.logins.length;
    const { pushed, workspace } = await pushJob(url, night.base, night.night, first.outputs.pull);
    expect(pushed.exitCode, pushed.stderr).toBe(0);
    expect(pushed.stdout).toMatch(
      /Pushed the night's 2 commit\(s\) to kanban-supervisor\/nightly and opened pull request #1 \(https:\/\/github\.example\/owner\/board\/pull\/1\)/,
    );
    // main is the person's: the night is on kanban-supervisor/nightly, from the commit it started at.
    expect(await git(bare, 'rev-parse', 'main')).toBe(main);
    expect(await subjects(bare, 'kanban-supervisor/nightly')).toEqual([
      expect.stringMatching(/^tasks\/002\.md: Implementor ok/),
      expect.stringMatching(/^tasks\/001\.md: Implementor ok/),
      'The board',
    ]);
    expect(await git(bare, 'show', 'kanban-supervisor/nightly:work.txt')).toBe('tasks/001.md\ntasks/002.md');
    expect(server!.logins.slice(before).filter(Boolean).length).toBeGreaterThan(0);
    expect(filesHolding(workspace, LOGIN.password)).toEqual([]);
    // What it asked GitHub: is there an open pull request from the branch? No: open one.
    const asked = api.requests.slice(-2);
    expect(asked.map((r) => `${r.method} ${r.url}`)).toEqual([
      'GET /repos/owner/board/pulls?head=owner:kanban-supervisor/nightly&base=main&state=open',
      'POST /repos/owner/board/pulls',
    ]);
    expect(asked[1]!.body).toEqual({
      head: 'kanban-supervisor/nightly',
      base: 'main',
      title: "kanban-supervisor: the night's work on kanban.yaml",
      body: expect.stringMatching(
        /^The night of \d{4}-\d\d-\d\d: 2 commit\(s\), one per step of the board kanban\.yaml\.\n\n- tasks\/001\.md: Implementor ok.*\n- tasks\/002\.md: Implementor ok.*\n\n.*kanban-night artifact of https:\/\/github\.example\/owner\/board\/actions\/runs\/4242\.$/,
      ),
    });
    expect(new Set(api.requests.map((r) => r.authorization))).toEqual(new Set([`Bearer ${LOGIN.password}`]));

    // Between the nights a reviewer adds a task on the pull request's branch; the night's history
    // is the kanban-history artifact.
    await personPushes(
      url,
      {
        'kanban.yaml':
          'phase: execute\ncurrent: tasks/003.md\ntasks:\n  - tasks/001.md\n  - tasks/002.md\n  - tasks/003.md\n' +
          'supervisor:\n  git_commit: true\n',
        'tasks/003.md': '---\ntitle: third\n---\nThird.\n',
      },
      'kanban-supervisor/nightly',
    );
    api.artifacts.push({ name: 'kanban-history', branch: 'main', zip: zipOf(night.history) });
    const second = await startJob(bare);
    expect(second.exitCode, second.stderr).toBe(0);
    expect(second.outputs).toEqual({
      ref: await git(bare, 'rev-parse', 'kanban-supervisor/nightly'),
      pull: '1',
      history: 'true',
    });
    expect(second.stdout).toContain('The night carries on from pull request #1');
    const events = execFileSync('tar', [
      '-xzOf',
      path.join(night.history, 'kanban-history.tar.gz'),
      '.kanban-supervisor/events.jsonl',
    ]);
    const nextNight = runJob(url, second);
    const night2 = await nextNight;
    expect(night2.ran["Restore the board's history"]?.exitCode).toBe(0);
    expect(night2.ran.Outcome!.exitCode).toBe(0);
    // The second night's history holds the first's events, then its own.
    const events2 = execFileSync('tar', [
      '-xzOf',
      path.join(night2.history, 'kanban-history.tar.gz'),
      '.kanban-supervisor/events.jsonl',
    ]);
    expect(events2.subarray(0, events.length).equals(events)).toBe(true);
    expect(events2.length).toBeGreaterThan(events.length);

    // The reviewer pushes again while it runs: the night's commit goes onto theirs, and the open
    // pull request gets the night as a comment, not a second pull request.
    await personPushes(url, { 'review.md': 'A reviewer was here.\n' }, 'kanban-supervisor/nightly');
    const next = await pushJob(url, night2.base, night2.night, second.outputs.pull);
    expect(next.pushed.exitCode, next.pushed.stderr).toBe(0);
    expect(next.pushed.stdout).toContain(
      "Pushed the night's 1 commit(s) to kanban-supervisor/nightly: pull request #1 has them",
    );
    expect((await subjects(bare, 'kanban-supervisor/nightly')).slice(0, 3)).toEqual([
      expect.stringMatching(/^tasks\/003\.md: Implementor ok/),
      "A person's review.md",
      "A person's kanban.yaml, tasks/003.md",
    ]);
    expect(await git(bare, 'show', 'kanban-supervisor/nightly:work.txt')).toBe(
      'tasks/001.md\ntasks/002.md\ntasks/003.md',
    );
    expect(api.pulls).toHaveLength(1);
    expect(api.comments).toEqual([
      { issue: 1, body: expect.stringMatching(/: 1 commit\(s\).*\n\n- tasks\/003\.md: Implementor ok/) },
    ]);
    expect(await git(bare, 'rev-parse', 'main')).toBe(main);
  });

  it('keeps the night on a branch of its own and fails when the pull request moved with a conflicting change', async () => {
    const { bare, url, api } = await repository();
    await git(bare, 'branch', 'kanban-supervisor/nightly', 'main');
    api.pulls.push({
      number: 7,
      head: { ref: 'kanban-supervisor/nightly' },
      base: { ref: 'main' },
      title: 't',
      body: 'b',
      state: 'open',
    });
    const start = await startJob(bare);
    expect(start.outputs.pull).toBe('7');
    const night = await runJob(url, start);
    await personPushes(url, { 'work.txt': "A person's own work.txt\n" }, 'kanban-supervisor/nightly');
    const person = await git(bare, 'rev-parse', 'kanban-supervisor/nightly');
    const { pushed } = await pushJob(url, night.base, night.night, start.outputs.pull);
    expect(pushed.exitCode).toBe(1);
    expect(pushed.stdout).toContain(
      "::error::The night's commits were not pushed to kanban-supervisor/nightly: kanban-supervisor/nightly moved during the night and the " +
        "night's commits conflict with its new ones. They are on the branch kanban-supervisor/night-4242: merge it into kanban-supervisor/nightly",
    );
    expect(await git(bare, 'rev-parse', 'kanban-supervisor/nightly')).toBe(person);
    expect(await git(bare, 'rev-list', '--count', `${night.base}..kanban-supervisor/night-4242`)).toBe('2');
    expect(await git(bare, 'show', 'kanban-supervisor/night-4242:work.txt')).toBe('tasks/001.md\ntasks/002.md');
    expect(api.requests.filter((r) => r.method === 'POST')).toEqual([]);
  });

  it('says how to let it open the pull request when GitHub refuses, the commits kept on kanban-supervisor/nightly', async () => {
    const { bare, url, api } = await repository();
    api.refusePulls = 'GitHub Actions is not permitted to create or approve pull requests.';
    const night = await runJob(url, await startJob(bare));
    const { pushed } = await pushJob(url, night.base, night.night);
    expect(pushed.exitCode).toBe(1);
    expect(pushed.stdout).toContain('GitHub Actions is not permitted to create or approve pull requests.');
    expect(pushed.stdout).toContain(
      "::error::The night's 2 commit(s) are on kanban-supervisor/nightly, but no pull request could be opened (GitHub's answer above). " +
        'If GitHub Actions is not permitted to create pull requests, allow it (Settings > Actions > General > Workflow permissions) or set the KANBAN_PUSH_TOKEN secret',
    );
    expect(await git(bare, 'rev-list', '--count', 'main..kanban-supervisor/nightly')).toBe('2');
  });

  it('fails before any agent runs when the board does not commit its steps', async () => {
    const { bare, url } = await repository(false);
    const night = await runJob(url, await startJob(bare));
    const check = night.ran['Check that the board commits every step']!;
    expect(check.exitCode).toBe(1);
    expect(check.stdout).toBe(
      '::error file=kanban.yaml::kanban.yaml: the steps would not be committed and the night\'s work would be lost with the runner. Add "git_commit: true" under "supervisor:" in kanban.yaml.',
    );
    expect(Object.keys(night.ran)).toEqual(['Check that the board commits every step']);
    expect(readdirSync(night.workspace)).not.toContain('work.txt');
  });
});
