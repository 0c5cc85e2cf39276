import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import type { CronJob } from 'kubernetes-models/batch/v1/CronJob';
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { Pod } from 'kubernetes-models/v1/Pod';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { EXIT_CODES } from '../../src/errors.js';
import { ROOT, SEQUENTIAL_MANAGER, events, makeBoard, read, role, tempDir } from '../helpers.js';
import { filesHolding, gitServer, type GitServer } from './git-server.js';
import {
  applyFsGroup,
  dockerRun,
  freshVolume,
  jobAfter,
  secretVolume,
  terminationLog,
  terminationMessage,
  type HostVolumes,
} from './kubelet.js';

// recipes/kubernetes run here with docker as a kubelet would run them (test/docker/kubelet.ts):
// the image built from the Dockerfile in place of the recipe's, the containers' commands, args,
// environment, users and restrictions as written, the init containers in order and the pod's
// container after them, the claim a folder holding lost+found as a fresh ext4 volume does, each
// container's termination message, and the Job's fate from its podFailurePolicy.
const IMAGE = process.env.KS_DOCKER_IMAGE ?? 'kanban-supervisor-test/app';
const recipe = (name: string) => parse(readFileSync(path.join(ROOT, 'recipes/kubernetes', name), 'utf8'));
const cronJob = recipe('cronjob.yaml') as CronJob;
const job = cronJob.spec.jobTemplate.spec!;
const pod = job.template.spec!;
const reader = (recipe('board-reader.yaml') as Pod).spec!;
const containers = [...(pod.initContainers ?? []), ...pod.containers];
const supervisor = containers.find((c) => c.name === 'supervisor')!;
const LOGIN = { username: 'night', password: 'repository-token-5f1c' };
const PERSON = ['-c', 'user.name=Person', '-c', 'user.email=person@example.com'];
const names: string[] = [];
let server: GitServer | undefined;

afterEach(async () => {
  if (names.length) await execa('docker', ['rm', '-f', ...names.splice(0)], { reject: false });
  await server?.close();
  server = undefined;
});

/** One container of a pod, started as the kubelet starts it; those that mount the Secret may reach the test's git server. */
function start(spec: typeof pod, container: IContainer, volumes: HostVolumes, flags: string[] = []) {
  const name = `ks-k8s-${process.pid}-${names.length}`;
  names.push(name);
  const network = container.name === 'fetch' || container.name === 'push' ? 'host' : 'none';
  const args = dockerRun(spec, container, volumes, IMAGE);
  return { name, run: ['run', '--name', name, '--network', network, ...flags, ...args] };
}

async function runContainer(container: IContainer, volumes: HostVolumes, flags: string[] = []) {
  const log = terminationLog(tempDir('ks-termination-'), container);
  const { run } = start(pod, container, volumes, [...log.flag, ...flags]);
  const ran = await execa('docker', run, { reject: false, stdin: 'ignore', timeout: 90_000, all: true });
  const message = terminationMessage(container, readFileSync(log.file, 'utf8'), ran.exitCode!, ran.all);
  return { ...ran, message };
}

/** The pod's volumes on this machine: the claim's folder, and the Secret's (if any). */
function hostVolumes(spec: typeof pod, claim: string, secret?: string): HostVolumes {
  const volumes = (spec.volumes ?? []).map((v) => [
    v.name,
    v.persistentVolumeClaim ? claim : v.secret ? secret : undefined,
  ]);
  return Object.fromEntries(volumes.filter(([, host]) => host !== undefined));
}

/** The recipe's containers, with the test's repository in place of the example's. */
function pointedAt(repository: string): IContainer[] {
  const env = (c: IContainer) => c.env?.map((e) => (e.name === 'BOARD_REPOSITORY' ? { ...e, value: repository } : e));
  return containers.map((c) => ({ ...c, env: env(c) }));
}

type Ran = Awaited<ReturnType<typeof runContainer>>;

/**
 * A night: the kubelet's fsGroup pass over the claim, the init containers in order (the pod
 * stops at the first that fails), then the pod's container. `before` runs before a container starts.
 */
async function night(claim: string, secret: string, night: IContainer[], before?: Record<string, () => void>) {
  const volumes = hostVolumes(pod, claim, secret);
  applyFsGroup(claim, pod);
  const ran: Record<string, Ran> = {};
  const exitCodes: Record<string, number> = {};
  for (const container of night) {
    before?.[container.name]?.();
    ran[container.name] = await runContainer(container, volumes);
    exitCodes[container.name] = ran[container.name]!.exitCode!;
    if (exitCodes[container.name] !== 0) break;
  }
  return { ran, job: jobAfter(job, { exitCodes }) };
}

/** A private repository holding a two-task board whose second task meets a usage limit the first time. */
function privateRepository(): string {
  const board = makeBoard({
    'kanban.yaml':
      'phase: execute\ncurrent: tasks/001.md\ntasks:\n  - tasks/001.md\n  - tasks/002.md\n' +
      'supervisor:\n  git_commit: true\n  limit_wait: 2s\n  max_limit_wait: 1s\n',
    'tasks/001.md': '---\ntitle: first\n---\nFirst.\n',
    'tasks/002.md': '---\ntitle: second\n---\nSecond.\n',
    'roles/manager.md': SEQUENTIAL_MANAGER,
    'roles/implementor.md': role(
      ['sh', 'worker.sh'],
      'stdin: none\nfailures:\n  usage_limit: ["usage limit reached"]\n',
    ),
    'worker.sh':
      'echo "$KANBAN_TASK_FILE" >> work.txt\n' +
      'if [ "$KANBAN_TASK_FILE" = tasks/002.md ] && [ ! -e limit.met ]; then\n' +
      '  : > limit.met; echo "usage limit reached" >&2; exit 1\nfi\n' +
      'echo \'{"status":"ok","message":"done"}\'\n',
    '.gitignore': '.kanban-supervisor/\nlimit.met\n',
  });
  const git = (...args: string[]) => execFileSync('git', ['-C', board, ...args], { stdio: 'pipe' });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git(...PERSON, 'commit', '-qm', 'The board');
  const repos = tempDir('ks-repos-');
  execFileSync('git', ['clone', '-q', '--bare', board, path.join(repos, 'board.git')]);
  return repos;
}

/** A person's commit of `file` on `branch`, pushed straight to the served repository. */
function personPushes(bare: string, branch: string, file: string, content: string, message: string): void {
  const clone = path.join(tempDir('ks-person-'), 'board');
  const git = (...args: string[]) => execFileSync('git', ['-C', clone, ...args], { stdio: 'pipe' });
  execFileSync('git', ['clone', '-q', '--branch', branch, bare, clone]);
  writeFileSync(path.join(clone, file), content);
  git('add', file);
  git(...PERSON, 'commit', '-qm', message);
  git('push', '-q', 'origin', `HEAD:${branch}`);
}

/** `git log --format=...` of a repository, one line a commit. */
function log(repository: string, ref: string, format = '%an %s'): string[] {
  const out = execFileSync('git', ['-c', 'safe.directory=*', '-C', repository, 'log', `--format=${format}`, ref], {
    encoding: 'utf8',
  });
  return out.trim().split('\n');
}

describe('the Kubernetes recipe, its containers run as a kubelet would', () => {
  it("fetches and rebases before the night, pushes the night's commits to a branch after it, and stops at a conflict", async () => {
    const repos = privateRepository();
    const bare = path.join(repos, 'board.git');
    server = await gitServer(repos, LOGIN);
    const volume = freshVolume(tempDir('ks-volume-'));
    const board = path.join(volume, 'board');
    const repository = `${server.url}board.git`;
    const recipeNight = pointedAt(repository);
    expect(recipeNight.map((c) => c.name)).toEqual(['fetch', 'rebase', 'supervisor', 'push']);

    // Before the Secret exists: the fetch is refused at once (no prompt), the Job counts a retry.
    const refused = await night(volume, tempDir('ks-no-secret-'), recipeNight);
    expect(refused.ran.fetch?.exitCode).toBe(128);
    expect(refused.ran.fetch?.message).toMatch(/Authentication failed|could not read Username/);
    expect(Object.keys(refused.ran)).toEqual(['fetch']);
    expect(refused.job).toBe('retried');
    expect(readdirSync(board)).toEqual([]);

    // With the Secret: the first night makes the board, runs task 1 and stops at task 2's usage
    // limit (69, which tini turns into success), then pushes task 1's commit to the review branch.
    const secret = secretVolume(tempDir('ks-secret-'), pod, LOGIN);
    const first = await night(volume, secret, recipeNight);
    expect(first.ran.rebase?.stdout).toMatch(/the board is main of http:\/\/127\.0\.0\.1:\d+\/board\.git/);
    expect(first.ran.supervisor?.exitCode, first.ran.supervisor?.stderr).toBe(0);
    expect(first.ran.supervisor?.stderr).toMatch(/usage limit .*later than max_limit_wait/);
    expect(events(board).at(-1)).toMatchObject({ exitCode: 69, reason: 'limit_wait' });
    expect(first.ran.push?.exitCode, first.ran.push?.all).toBe(0);
    expect(first.ran.push?.message).toBe(
      'pushed: 1 new commit(s) this night; kanban-supervisor/nightly holds the 1 commit(s) that main lacks, ' +
        'for review; the night ended with exit 69 (kubectl logs -c supervisor says why)\n',
    );
    expect(first.job).toBe('complete');
    expect(log(bare, 'kanban-supervisor/nightly')).toEqual([
      expect.stringMatching(/^kanban-supervisor tasks\/001\.md: Implementor ok/),
      'Person The board',
    ]);
    expect(log(bare, 'main')).toEqual(['Person The board']);
    // Every request carried the Secret's login or none (git asks without one first), and the
    // login is nowhere on the volume: not in the board (its .git/config names the URL alone), not in sync.git.
    expect(server.logins.filter(Boolean).every((login) => login === `${LOGIN.username}:${LOGIN.password}`)).toBe(true);
    expect(server.logins.filter(Boolean).length).toBeGreaterThanOrEqual(2);
    expect(filesHolding(volume, LOGIN.password)).toEqual([]);
    expect(read(board, '.git/config')).toContain(`url = ${repository}`);

    // The credential helper (in sync.git's config) answers the repository's own host, no other
    // (one a redirect would name), and only where the Secret is mounted.
    const push = recipeNight.find((c) => c.name === 'push')!;
    const ask = async (host: string, secretFolder = secret) => {
      const fill = `printf 'protocol=http\\nhost=%s\\n\\n' "$1" | git -C /data/sync.git credential fill`;
      const asking = { ...push, command: ['sh', '-c', fill, 'sh', host] };
      return runContainer(asking, hostVolumes(pod, volume, secretFolder));
    };
    const own = new URL(repository).host;
    expect((await ask(own)).stdout).toContain(`password=${LOGIN.password}`);
    const other = await ask('git.example.org');
    expect([other.exitCode, other.stdout]).toEqual([128, '']);
    expect((await ask(own, tempDir('ks-no-secret-'))).stdout).not.toContain('password=');

    // During the day a person pushes to main; the next night starts from it.
    personPushes(bare, 'main', 'notes.md', 'From a person.\n', 'A person pushed this');
    // What the night left uncommitted (a person's edit from the reader pod, say) is stashed and put back.
    writeFileSync(path.join(board, 'tasks/002.md'), `${read(board, 'tasks/002.md')}Edited.\n`);
    await new Promise((resolve) => setTimeout(resolve, 3000)); // the limit's reset (limit_wait: 2s)
    const second = await night(volume, secret, recipeNight);
    expect(second.ran.rebase?.stdout).toMatch(/rebase: 1 commit\(s\) of the board on top of main/);
    expect(second.ran.supervisor?.stdout).toMatch(/Done: the board has no next task/);
    expect(second.job).toBe('complete');
    expect(read(board, 'notes.md')).toBe('From a person.\n');
    expect(read(board, 'tasks/002.md')).toMatch(/Edited\.\n$/);
    expect(read(board, 'work.txt')).toBe('tasks/001.md\ntasks/002.md\ntasks/002.md\n');
    expect(second.ran.push?.message).toMatch(/^pushed: 1 new commit\(s\) this night; .*holds the 2 commit\(s\)/);
    expect(log(bare, 'kanban-supervisor/nightly')).toEqual([
      expect.stringMatching(/^kanban-supervisor tasks\/002\.md: Implementor ok/),
      expect.stringMatching(/^kanban-supervisor tasks\/001\.md: Implementor ok/),
      'Person A person pushed this',
      'Person The board',
    ]);
    expect(events(board).filter((e) => e.type === 'run_started')).toHaveLength(2);

    // A reviewer adds a commit to the review branch: the next night takes it in. That night has
    // nothing left to do and makes no commit: the push's message says so (the alert's line).
    personPushes(bare, 'kanban-supervisor/nightly', 'review.md', 'Looked at it.\n', 'Reviewed');
    const third = await night(volume, secret, recipeNight);
    expect(third.job).toBe('complete');
    expect(read(board, 'review.md')).toBe('Looked at it.\n');
    expect(third.ran.push?.message).toMatch(/^no progress: no new commit this night; .*holds the 3 commit\(s\)/);
    expect(log(bare, 'kanban-supervisor/nightly', '%s')[0]).toBe('Reviewed');

    // Someone pushes to the review branch while a night runs: the push leaves it alone and puts
    // the night's commits on a branch of their own; the Job fails, its message names the branch.
    const held = log(bare, 'kanban-supervisor/nightly', '%H')[0];
    const fourth = await night(volume, secret, recipeNight, {
      push: () => personPushes(bare, 'kanban-supervisor/nightly', 'late.md', 'Late.\n', 'Late review'),
    });
    expect(fourth.ran.push?.exitCode).toBe(11);
    const side = /are on (kanban-supervisor\/night-\d{8}-\d{4}):/.exec(fourth.ran.push?.message ?? '')?.[1];
    expect(side, fourth.ran.push?.message).toBeDefined();
    expect(log(bare, side!, '%H')[0]).toBe(log(board, 'HEAD', '%H')[0]);
    expect(log(bare, 'kanban-supervisor/nightly', '%s')[0]).toBe('Late review');
    expect(log(bare, 'kanban-supervisor/nightly', '%H')[1]).toBe(held);
    expect(fourth.job).toBe('failed');

    // main gets a change that conflicts with the board's commits: the rebase is undone, the board
    // left as it was, the Job fails for a person with a message saying what to do.
    execFileSync('git', ['-C', bare, 'update-ref', '-d', 'refs/heads/kanban-supervisor/nightly']);
    personPushes(bare, 'main', 'work.txt', 'a person rewrote this\n', 'A conflicting change');
    const boardBefore = log(board, 'HEAD', '%H');
    const fifth = await night(volume, secret, recipeNight);
    expect(fifth.ran.rebase?.exitCode).toBe(10);
    expect(fifth.ran.rebase?.message).toMatch(/conflict with new commits on main; the board was left as it was/);
    expect(Object.keys(fifth.ran)).toEqual(['fetch', 'rebase']);
    expect(fifth.job).toBe('failed');
    expect(log(board, 'HEAD', '%H')).toEqual(boardBefore);
    expect(read(board, 'work.txt')).toBe('tasks/001.md\ntasks/002.md\ntasks/002.md\n');
    expect(existsSync(path.join(board, '.git', 'rebase-merge'))).toBe(false);

    // The morning: the reader pod, and the kubectl exec / cp of docs/off-the-laptop.md as docker exec / cp.
    const readerPod = start(reader, reader.containers[0]!, hostVolumes(reader, volume), ['-d']);
    await execa('docker', readerPod.run);
    const exec = (...args: string[]) => execa('docker', ['exec', readerPod.name, ...args], { reject: false });
    const status = await exec('kanban-supervisor', 'status', 'board');
    expect(status.exitCode, status.stderr).toBe(0);
    expect(status.stdout).toMatch(/tasks\/002\.md +Implementor +✓ replied ok/);
    expect((await exec('kanban-supervisor', 'report', 'board', '--out', '/tmp/report.html')).exitCode).toBe(0);
    const copy = path.join(tempDir('ks-morning-'), 'report.html');
    await execa('docker', ['cp', `${readerPod.name}:/tmp/report.html`, copy]);
    expect(readFileSync(copy, 'utf8')).toMatch(/^<!doctype html>/i);
    // The commits of a night that did not push, taken out as a bundle.
    expect((await exec('git', '-C', 'board', 'bundle', 'create', '/tmp/night.bundle', 'HEAD')).exitCode).toBe(0);
    const bundle = path.join(path.dirname(copy), 'night.bundle');
    await execa('docker', ['cp', `${readerPod.name}:/tmp/night.bundle`, bundle]);
    expect(execFileSync('git', ['bundle', 'list-heads', bundle], { encoding: 'utf8' })).toContain(
      log(board, 'HEAD', '%H')[0],
    );
  });

  it('ends the Job for each exit code as the table says: the supervisor, its exit code, then the push', async () => {
    const stubs = tempDir('ks-stub-');
    const stub = (name: string, script: string) => {
      writeFileSync(path.join(stubs, name), `#!/bin/sh\n${script}`, { mode: 0o755 });
      return ['--mount', `type=bind,source=${path.join(stubs, name)},target=/usr/local/bin/${name}`];
    };
    const supervising = stub('kanban-supervisor', 'exit "$STUB_EXIT"\n');
    // git as the push sees it on a board with nothing to push: the push's own outcome is "no progress".
    const git = stub('git', 'case "$1" in rev-list) echo 0 ;; esac\n');
    const push = containers.find((c) => c.name === 'push')!;
    const fate = { done: 'complete', later: 'complete', again: 'retried', person: 'failed' } as const;
    const seen = await Promise.all(
      EXIT_CODES.map(async ({ code }) => {
        const volume = freshVolume(tempDir('ks-volume-'));
        for (const folder of ['board', 'state', 'sync.git']) mkdirSync(path.join(volume, folder));
        applyFsGroup(volume, pod);
        const volumes = hostVolumes(pod, volume, tempDir('ks-no-secret-'));
        const ran = await runContainer(supervisor, volumes, [...supervising, '-e', `STUB_EXIT=${code}`]);
        expect(read(volume, 'state/night-exit')).toBe(`${code}\n`);
        const exitCodes: Record<string, number> = { fetch: 0, rebase: 0, supervisor: ran.exitCode! };
        if (ran.exitCode === 0) {
          const pushed = await runContainer(push, volumes, git);
          expect(pushed.message).toMatch(new RegExp(`^no progress: .*ended with exit ${code} `));
          exitCodes.push = pushed.exitCode!;
        }
        return [code, jobAfter(job, { exitCodes })];
      }),
    );
    expect(Object.fromEntries(seen)).toEqual(Object.fromEntries(EXIT_CODES.map((row) => [row.code, fate[row.next]])));
  });

  it("passes the signal that stops the pod to the supervisor, and ends with the supervisor's code", async () => {
    const stub = path.join(tempDir('ks-stub-'), 'kanban-supervisor');
    writeFileSync(stub, "#!/bin/sh\ntrap 'echo stopping >&2; exit 143' TERM\necho started\nsleep 60 & wait\n", {
      mode: 0o755,
    });
    const volume = freshVolume(tempDir('ks-volume-'));
    for (const folder of ['board', 'state']) mkdirSync(path.join(volume, folder));
    applyFsGroup(volume, pod);
    const flags = ['-d', '--mount', `type=bind,source=${stub},target=/usr/local/bin/kanban-supervisor`];
    const { name, run } = start(pod, supervisor, hostVolumes(pod, volume), flags);
    await execa('docker', run);
    for (let i = 0; i < 50 && !(await execa('docker', ['logs', name])).stdout.includes('started'); i++)
      await new Promise((resolve) => setTimeout(resolve, 100));
    // The kubelet stops a container as `docker stop` does: SIGTERM, then SIGKILL after the grace period.
    await execa('docker', ['stop', '--time', String(pod.terminationGracePeriodSeconds), name]);
    const state = await execa('docker', ['inspect', '--format', '{{.State.ExitCode}}', name]);
    expect(state.stdout).toBe('143');
    expect((await execa('docker', ['logs', name])).stderr).toContain('stopping');
    expect(read(volume, 'state/night-exit')).toBe('143\n');
    expect(jobAfter(job, { exitCodes: { fetch: 0, rebase: 0, supervisor: 143 } })).toBe('retried');
  });
});
