import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ROOT, SEQUENTIAL_MANAGER, makeBoard, role, tempDir } from '../helpers.js';
import { filesHolding, gitServer, type GitServer } from './git-server.js';
import { runStep, step, type Workflow } from './runner.js';

// recipes/github-actions/nightly.yml's shell steps, run here as a runner would (test/docker/runner.ts)
// against a private repository served on 127.0.0.1 that moves during the run. The `uses:` steps
// are done by the test: actions/checkout (persist-credentials: false) by a clone whose login is
// not kept, the artifact by a copy, and the install by kanban-supervisor on PATH running the
// image built from the Dockerfile (`docker run`), as the runner's global install would run it.
const IMAGE = process.env.KS_DOCKER_IMAGE ?? 'kanban-supervisor-test/app';
const workflow = parse(readFileSync(path.join(ROOT, 'recipes/github-actions/nightly.yml'), 'utf8')) as Workflow;
const LOGIN = { username: 'x-access-token', password: 'ghs_test-token-8d3e' };
const label = `ks-gha-${process.pid}`;
let server: GitServer | undefined;

afterEach(async () => {
  const { stdout } = await execa('docker', ['ps', '-aq', '--filter', `label=${label}`]);
  if (stdout) await execa('docker', ['rm', '-f', ...stdout.split('\n')], { reject: false });
  await server?.close();
  server = undefined;
});

// Async: the git server runs in this process, and a git that talks to it must not block it.
const git = async (dir: string, ...args: string[]) =>
  (await execa('git', ['-C', dir, ...args], { stdin: 'ignore' })).stdout.trim();
const basic = Buffer.from(`${LOGIN.username}:${LOGIN.password}`).toString('base64');
const header = `http.extraHeader=Authorization: Basic ${basic}`;

/** A private repository (main) holding a two-task board with `git_commit: true`. */
async function repository() {
  const board = makeBoard({
    'kanban.yaml':
      'phase: execute\ncurrent: tasks/001.md\ntasks:\n  - tasks/001.md\n  - tasks/002.md\n' +
      'supervisor:\n  git_commit: true\n',
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
  execFileSync('git', ['clone', '-q', '--bare', board, path.join(repos, 'board.git')]);
  server = await gitServer(repos, LOGIN);
  return { bare: path.join(repos, 'board.git'), url: `${server.url}board.git` };
}

/** A person's commit pushed to main while the night runs. */
async function personPushes(url: string, file: string, text: string): Promise<void> {
  const clone = path.join(tempDir('ks-person-'), 'board');
  await execa('git', ['-c', header, 'clone', '-q', url, clone]);
  writeFileSync(path.join(clone, file), text);
  await git(clone, 'add', file);
  await git(
    clone,
    '-c',
    'user.name=Person',
    '-c',
    'user.email=person@example.com',
    'commit',
    '-qm',
    `A person's ${file}`,
  );
  await git(clone, '-c', header, 'push', '-q', 'origin', 'main');
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
  };
  return { temp, vars };
}

/** The `run` job: checkout, the run, the report and bundle, the outcome; returns its workspace and artifact. */
async function runJob(url: string) {
  const { temp, vars } = runner();
  const workspace = path.join(temp, 'workspace');
  await execa('git', ['-c', header, 'clone', '-q', '--depth', '1', '--branch', 'main', url, workspace]);
  const context: Record<string, unknown> = { secrets: { ANTHROPIC_API_KEY: '' }, runner: { temp }, steps: {} };
  const ran: Record<string, Awaited<ReturnType<typeof runStep>>> = {};
  for (const name of ['Run the board', "The report, and the night's commits as a bundle", 'Outcome']) {
    const s = step(workflow, 'run', name);
    ran[name] = await runStep(workflow, s, { cwd: workspace, context, runner: vars });
    if (s.id) (context.steps as Record<string, unknown>)[s.id] = { outputs: ran[name].outputs };
  }
  return { workspace, night: path.join(temp, 'night'), ran, base: ran['Run the board']!.outputs.base! };
}

/** The `push` job on a fresh runner: checkout of the night's base, the artifact, the push step. */
async function pushJob(url: string, base: string, artifact: string) {
  const { temp, vars } = runner();
  const workspace = path.join(temp, 'workspace');
  mkdirSync(workspace);
  await git(workspace, 'init', '-q');
  await git(workspace, 'remote', 'add', 'origin', url);
  await git(workspace, '-c', header, 'fetch', '-q', '--depth', '1', 'origin', base);
  await git(workspace, 'checkout', '-q', '--detach', 'FETCH_HEAD');
  cpSync(artifact, path.join(temp, 'night'), { recursive: true });
  const context = { github: { ref_name: 'main', token: LOGIN.password } };
  const pushed = await runStep(workflow, step(workflow, 'push', "Fetch, rebase and push the night's commits"), {
    cwd: workspace,
    context,
    runner: vars,
  });
  return { pushed, workspace };
}

describe('the GitHub Actions recipe, its shell steps run here', () => {
  it('commits each step in the image; the push job alone, with the token, rebases onto the moved branch', async () => {
    const { bare, url } = await repository();
    const night = await runJob(url);
    expect(night.ran['Run the board']!.outputs['exit-code']).toBe('0');
    // One commit per step, made by git in the image (docker run), on the checkout's branch.
    expect((await git(night.workspace, 'log', '--format=%an %s', `${night.base}..HEAD`)).split('\n')).toEqual([
      expect.stringMatching(/^kanban-supervisor tasks\/002\.md: Implementor ok/),
      expect.stringMatching(/^kanban-supervisor tasks\/001\.md: Implementor ok/),
    ]);
    expect(night.ran.Outcome!.exitCode).toBe(0);
    expect(readdirSync(night.night).sort()).toEqual(['night.bundle', 'report-files', 'report.html', 'run.jsonl']);
    // The run job's checkout kept no login: none anywhere the agents worked.
    expect(filesHolding(night.workspace, LOGIN.password)).toEqual([]);
    expect(readFileSync(path.join(night.workspace, '.git/config'), 'utf8')).not.toMatch(/extraheader|credential/i);

    await personPushes(url, 'notes.md', 'Written while the board ran.\n');
    const before = server!.logins.length;
    const { pushed, workspace } = await pushJob(url, night.base, night.night);
    expect(pushed.exitCode, pushed.stderr).toBe(0);
    expect(pushed.stdout).toMatch(/Pushed the night's 2 commit\(s\) onto main/);
    expect((await git(bare, 'log', '--format=%s', 'main')).split('\n')).toEqual([
      expect.stringMatching(/^tasks\/002\.md: Implementor ok/),
      expect.stringMatching(/^tasks\/001\.md: Implementor ok/),
      "A person's notes.md",
      'The board',
    ]);
    expect(await git(bare, 'show', 'main:work.txt')).toBe('tasks/001.md\ntasks/002.md');
    expect(server!.logins.slice(before).filter(Boolean).length).toBeGreaterThan(0);
    expect(filesHolding(workspace, LOGIN.password)).toEqual([]);
  });

  it('keeps the night on a branch of its own and fails when the branch moved with a conflicting change', async () => {
    const { bare, url } = await repository();
    const night = await runJob(url);
    await personPushes(url, 'work.txt', "A person's own work.txt\n");
    const person = await git(bare, 'rev-parse', 'main');
    const { pushed } = await pushJob(url, night.base, night.night);
    expect(pushed.exitCode).toBe(1);
    expect(pushed.stdout).toContain(
      "::error::The night's commits were not pushed to main: main moved during the night and the night's commits " +
        'conflict with its new ones. They are on the branch kanban-supervisor/night-4242: merge it into main',
    );
    expect(await git(bare, 'rev-parse', 'main')).toBe(person);
    expect(await git(bare, 'rev-list', '--count', `${night.base}..kanban-supervisor/night-4242`)).toBe('2');
    expect(await git(bare, 'show', 'kanban-supervisor/night-4242:work.txt')).toBe('tasks/001.md\ntasks/002.md');
  });
});
