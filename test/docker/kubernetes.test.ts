import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
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
import { applyFsGroup, dockerRun, freshVolume, jobAfter, secretVolume, type HostVolumes } from './kubelet.js';

// recipes/kubernetes run here with docker as a kubelet would run them (test/docker/kubelet.ts):
// the image built from the Dockerfile in place of the recipe's, the containers' commands, args,
// environment, users and restrictions as written, the init container first, the claim a folder
// holding lost+found as a fresh ext4 volume does, and the Job's fate from its podFailurePolicy.
const IMAGE = process.env.KS_DOCKER_IMAGE ?? 'kanban-supervisor-test/app';
const recipe = (name: string) => parse(readFileSync(path.join(ROOT, 'recipes/kubernetes', name), 'utf8'));
const cronJob = recipe('cronjob.yaml') as CronJob;
const job = cronJob.spec.jobTemplate.spec!;
const pod = job.template.spec!;
const reader = (recipe('board-reader.yaml') as Pod).spec!;
const [clone] = pod.initContainers ?? [];
const [supervisor] = pod.containers;
const LOGIN = { username: 'night', password: 'repository-token-5f1c' };
const names: string[] = [];
let server: GitServer | undefined;

afterEach(async () => {
  if (names.length) await execa('docker', ['rm', '-f', ...names.splice(0)], { reject: false });
  await server?.close();
  server = undefined;
});

/** One container of a pod, started as the kubelet starts it; the clone may reach the test's git server. */
function start(spec: typeof pod, container: IContainer, volumes: HostVolumes, flags: string[] = []) {
  const name = `ks-k8s-${process.pid}-${names.length}`;
  names.push(name);
  const network = container.name === 'clone' ? 'host' : 'none';
  const args = dockerRun(spec, container, volumes, IMAGE);
  return { name, run: ['run', '--name', name, '--network', network, ...flags, ...args] };
}

async function runContainer(container: IContainer, volumes: HostVolumes, flags: string[] = []) {
  const { run } = start(pod, container, volumes, flags);
  return execa('docker', run, { reject: false, stdin: 'ignore', timeout: 90_000 });
}

/** The pod's volumes on this machine: the claim's folder, and the Secret's (if any). */
function hostVolumes(spec: typeof pod, claim: string, secret?: string): HostVolumes {
  const volumes = (spec.volumes ?? []).map((v) => [
    v.name,
    v.persistentVolumeClaim ? claim : v.secret ? secret : undefined,
  ]);
  return Object.fromEntries(volumes.filter(([, host]) => host !== undefined));
}

/** A night: the kubelet's fsGroup pass over the claim, the init container, then the supervisor's. */
async function night(claim: string, secret: string, cloning: IContainer) {
  const volumes = hostVolumes(pod, claim, secret);
  applyFsGroup(claim, pod);
  const cloned = await runContainer(cloning, volumes);
  if (cloned.exitCode !== 0)
    return { cloned, ran: undefined, job: jobAfter(job, { exitCodes: { clone: cloned.exitCode! } }) };
  const ran = await runContainer(supervisor!, volumes);
  return { cloned, ran, job: jobAfter(job, { exitCodes: { clone: 0, supervisor: ran.exitCode! } }) };
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
    '.gitignore': '.kanban-supervisor/\n',
  });
  const git = (...args: string[]) => execFileSync('git', ['-C', board, ...args], { stdio: 'pipe' });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('-c', 'user.name=Person', '-c', 'user.email=person@example.com', 'commit', '-qm', 'The board');
  const repos = tempDir('ks-repos-');
  execFileSync('git', ['clone', '-q', '--bare', board, path.join(repos, 'board.git')]);
  return repos;
}

describe('the Kubernetes recipe, its containers run as a kubelet would', () => {
  it('clones beside lost+found with the Secret, completes the Job at a limit, goes on the next night', async () => {
    server = await gitServer(privateRepository(), LOGIN);
    const volume = freshVolume(tempDir('ks-volume-'));
    const board = path.join(volume, 'board');
    // The recipe's clone, with the test's repository in place of the example's.
    const repository = `${server.url}board.git`;
    const cloning = {
      ...clone!,
      env: clone!.env?.map((e) => (e.name === 'BOARD_REPOSITORY' ? { ...e, value: repository } : e)),
    };

    // Before the Secret exists: the clone is refused at once (no prompt), the Job counts a retry.
    const refused = await night(volume, tempDir('ks-no-secret-'), cloning);
    expect(refused.cloned.exitCode).toBe(128);
    expect(refused.cloned.stderr).toMatch(/Authentication failed|could not read Username/);
    expect(refused.job).toBe('retried');
    expect(readdirSync(volume).sort()).toEqual(['lost+found']);

    // With the Secret: the first night clones, runs task 1, and stops at task 2's usage limit (69),
    // which tini turns into a pod that succeeded: the Job completes, nothing runs again before the next schedule.
    const secret = secretVolume(tempDir('ks-secret-'), pod, LOGIN);
    const first = await night(volume, secret, cloning);
    expect(first.cloned.exitCode, first.cloned.stderr).toBe(0);
    expect(first.cloned.stdout).toMatch(/cloned into \/data\/board/);
    expect(first.ran?.exitCode, first.ran?.stderr).toBe(0);
    expect(first.ran?.stderr).toMatch(/usage limit .*later than max_limit_wait/);
    expect(events(board).at(-1)).toMatchObject({ exitCode: 69, reason: 'limit_wait' });
    expect(first.job).toBe('complete');
    expect(server.logins.filter(Boolean).every((login) => login === `${LOGIN.username}:${LOGIN.password}`)).toBe(true);
    // The login is nowhere on the volume the agents work on (not in .git/config's URL either).
    expect(filesHolding(volume, LOGIN.password)).toEqual([]);
    expect(read(board, '.git/config')).toContain(`url = ${repository}`);

    await new Promise((resolve) => setTimeout(resolve, 3000)); // the limit's reset (limit_wait: 2s)
    const second = await night(volume, secret, cloning);
    expect(second.cloned.stdout).toMatch(/left as it is/);
    expect(second.ran?.exitCode, second.ran?.stderr).toBe(0);
    expect(second.ran?.stdout).toMatch(/Done: the board has no next task/);
    expect(second.job).toBe('complete');
    expect(read(board, 'work.txt')).toBe('tasks/001.md\ntasks/002.md\ntasks/002.md\n');
    // One commit per step, by the identity the recipe gives, as the pod's user.
    const log = execFileSync('git', ['-c', 'safe.directory=*', '-C', board, 'log', '--format=%an %s'], {
      encoding: 'utf8',
    });
    expect(log.trim().split('\n')).toEqual([
      expect.stringMatching(/^kanban-supervisor tasks\/002\.md: Implementor ok/),
      expect.stringMatching(/^kanban-supervisor tasks\/001\.md: Implementor ok/),
      'Person The board',
    ]);
    expect(events(board).filter((e) => e.type === 'run_started')).toHaveLength(2);

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
    // The night's commits, taken out as a bundle: the two step commits and the repository's own.
    expect((await exec('git', '-C', 'board', 'bundle', 'create', '/tmp/night.bundle', 'HEAD')).exitCode).toBe(0);
    const bundle = path.join(path.dirname(copy), 'night.bundle');
    await execa('docker', ['cp', `${readerPod.name}:/tmp/night.bundle`, bundle]);
    expect(execFileSync('git', ['bundle', 'list-heads', bundle], { encoding: 'utf8' })).toContain(
      execFileSync('git', ['-c', 'safe.directory=*', '-C', board, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).trim(),
    );
  });

  it('ends the Job for each exit code as the table says, through tini and the podFailurePolicy', async () => {
    const stub = path.join(tempDir('ks-stub-'), 'kanban-supervisor');
    writeFileSync(stub, '#!/bin/sh\nexit "$STUB_EXIT"\n', { mode: 0o755 });
    const volume = freshVolume(tempDir('ks-volume-'));
    mkdirSync(path.join(volume, 'board'));
    applyFsGroup(volume, pod);
    const fate = { done: 'complete', later: 'complete', again: 'retried', person: 'failed' } as const;
    const seen = await Promise.all(
      EXIT_CODES.map(async ({ code }) => {
        const flags = ['--mount', `type=bind,source=${stub},target=/usr/local/bin/kanban-supervisor`];
        const ran = await runContainer(supervisor!, hostVolumes(pod, volume), [...flags, '-e', `STUB_EXIT=${code}`]);
        return [code, jobAfter(job, { exitCodes: { clone: 0, supervisor: ran.exitCode! } })];
      }),
    );
    expect(Object.fromEntries(seen)).toEqual(Object.fromEntries(EXIT_CODES.map((row) => [row.code, fate[row.next]])));
  });
});
