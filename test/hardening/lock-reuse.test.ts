import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { ownerState, type ProcessIdentity } from '../../src/lock/process-identity.js';
import { CLI, boardWithTasks, events, fixtureRole, read, role } from '../helpers.js';
import { recordedPids, waitFor } from './procs.js';

// A real pid reuse needs pid namespaces (unshare, as root): a supervisor is pid 1 in a new one, as
// in a container, and a namespace's next pid can be set (ns_last_pid) to hand a dead pid to another process.
const asRoot = process.getuid?.() === 0;
const LOCKED = /locked by another kanban-supervisor/;
const FOREVER = fixtureRole('forever-with-grandchild.mjs', ['pids.jsonl'], 'stdin: none\n');
const QUICK = fixtureRole('exits-before-reading.mjs', [], 'stdin: none\n');
// The same in sh: no Node threads (each takes a pid) are still being created when a dead pid is handed on.
const FOREVER_SH = role(
  ['sh', '-c', 'sleep 300 & printf \'{"leader":%s,"grandchild":%s}\\n\' $$ $! >> pids.jsonl; echo working on it; wait'],
  'stdin: none\n',
);

/** A one-task board whose worker never ends (until it is swapped for one that replies at once). */
function foreverBoard(worker = FOREVER): string {
  return boardWithTasks(1, { 'roles/implementor.md': worker }, 'phase: execute\nsupervisor:\n  kill_grace: 1s\n');
}

/** The run's pid as the lock recorded it. */
function lockOwner(dir: string): { pid: number } {
  return JSON.parse(readFileSync(path.join(dir, '.kanban-supervisor/run.lock/owner.json'), 'utf8')) as { pid: number };
}

/** Run the built CLI as pid 1 of a new pid namespace, as a container runs it. */
function inNewPidNamespace(dir: string) {
  return execa('unshare', ['--pid', '--fork', '--mount-proc', process.execPath, CLI, 'kanban.yaml'], {
    cwd: dir,
    reject: false,
    env: { NO_COLOR: '1' },
    stdin: 'ignore',
    timeout: 60_000,
  });
}

/** The host pid of the supervisor `unshare --fork` started (pid 1 of its namespace). */
function supervisorOf(unshare: number): number {
  return Number(readFileSync(`/proc/${unshare}/task/${unshare}/children`, 'utf8').trim());
}

describe.skipIf(!asRoot)('the run lock after a kill -9 whose pid is used again', () => {
  it('is not refused when the restart is pid 1 again, in a new pid namespace, as in a new container', async () => {
    const dir = foreverBoard();
    const first = inNewPidNamespace(dir);
    await waitFor(() => recordedPids(path.join(dir, 'pids.jsonl')).length === 2, 'the agent to start');
    expect(lockOwner(dir).pid).toBe(1);
    // pid 1 of the namespace: the kernel then kills the rest of it
    process.kill(supervisorOf(first.pid as number), 'SIGKILL');
    await first;

    expect(read(dir, 'kanban.yaml')).toMatch(/current: tasks\/001\.md/); // unchanged by the kill
    writeFileSync(path.join(dir, 'roles/implementor.md'), QUICK);
    const started = Date.now();
    const again = await inNewPidNamespace(dir);
    expect(again.stderr).not.toMatch(LOCKED);
    expect(again.exitCode).toBe(0);
    // Its owner in another pid namespace cannot be looked up: the lock is taken once not refreshed
    // for 10 s, well before the 20 s after which a lock of another host goes stale.
    expect(Date.now() - started).toBeLessThan(18_000);
    expect(read(dir, 'kanban.yaml')).toMatch(/current: null/);
  });

  it('still refuses a live supervisor in another pid namespace, once its lock is seen refreshed', async () => {
    const dir = foreverBoard();
    const first = inNewPidNamespace(dir);
    await waitFor(() => recordedPids(path.join(dir, 'pids.jsonl')).length === 2, 'the agent to start');
    const started = Date.now();
    const second = await inNewPidNamespace(dir);
    expect(second.exitCode).toBe(75);
    expect(second.stderr).toMatch(LOCKED);
    expect(Date.now() - started).toBeLessThan(9_000); // refreshed every 2 s: no need to wait the 10 s out
    expect(recordedPids(path.join(dir, 'pids.jsonl'))).toHaveLength(2); // its agent was not run a second time
    process.kill(supervisorOf(first.pid as number), 'SIGTERM');
    expect((await first).exitCode).toBe(143);
  });

  it("takes over at once when the dead supervisor's pid now belongs to another process of its namespace", async () => {
    const dir = foreverBoard(FOREVER_SH);
    // In one namespace: run, kill -9 the supervisor, give its pid to a bystander, run again.
    const script = [
      'node "$CLI" kanban.yaml 2>first.err & sup=$!',
      'i=0; until [ -s pids.jsonl ]; do i=$((i + 1)); [ $i -lt 300 ] || { cat first.err >&2; exit 1; }; ' +
        'sleep 0.05; done',
      'kill -9 "$sup"; wait "$sup"',
      'echo $((sup - 1)) > /proc/sys/kernel/ns_last_pid',
      'sleep 300 & bystander=$!',
      'printf "%s" "$QUICK" > roles/implementor.md',
      't0=$(date +%s%3N); node "$CLI" kanban.yaml 2>second.err; code=$?; t1=$(date +%s%3N)',
      'echo "$sup $bystander $code $((t1 - t0))" > reuse.txt',
      'kill "$bystander"',
    ].join('\n');
    const ran = await execa('unshare', ['--pid', '--fork', '--mount-proc', 'sh', '-c', script], {
      cwd: dir,
      reject: false,
      env: { CLI, QUICK, NO_COLOR: '1', PATH: `${path.dirname(process.execPath)}:${process.env.PATH ?? ''}` },
      timeout: 60_000,
    });
    expect(ran.exitCode, ran.stderr).toBe(0);
    const [supervisor, bystander, code, ms] = read(dir, 'reuse.txt').trim().split(' ').map(Number);
    expect(bystander).toBe(supervisor); // the pid really was reused
    expect(read(dir, 'second.err')).not.toMatch(LOCKED);
    expect(code).toBe(0);
    expect(ms).toBeLessThan(8_000); // no wait for the lock to go quiet: the pid's start time tells
    const run = events(dir)
      .filter((e) => e.type === 'run_started')
      .at(-1);
    expect(run).toMatchObject({ stoppedLeftoverAgent: { role: 'Implementor', task: 'tasks/001.md' } });
  });
});

describe('the lock owner judged by process identity', () => {
  const self: ProcessIdentity = { pid: 7, host: 'box', bootId: 'boot-a', pidNs: 'pid:[1]', startTicks: 500 };
  const alive = (startTicks: number) => () => ({ alive: true, startTicks });
  it.each([
    [
      'our own pid on our boot and namespace (a dead predecessor)',
      { pid: 7, host: 'box', bootId: 'boot-a', pidNs: 'pid:[1]', startTicks: 100 },
      alive(500),
      'dead',
    ],
    [
      'a live pid started at another time (reused)',
      { pid: 9, host: 'box', bootId: 'boot-a', pidNs: 'pid:[1]', startTicks: 100 },
      alive(400),
      'dead',
    ],
    [
      'a live pid started at the recorded time',
      { pid: 9, host: 'box', bootId: 'boot-a', pidNs: 'pid:[1]', startTicks: 100 },
      alive(100),
      'alive',
    ],
    [
      'a pid that is gone',
      { pid: 9, host: 'box', bootId: 'boot-a', pidNs: 'pid:[1]' },
      () => ({ alive: false }),
      'dead',
    ],
    ['this host before a reboot', { pid: 9, host: 'box', bootId: 'boot-0', pidNs: 'pid:[1]' }, alive(100), 'dead'],
    ['another host', { pid: 9, host: 'far', bootId: 'boot-z', pidNs: 'pid:[1]' }, alive(100), 'elsewhere'],
    [
      'another container of this kernel',
      { pid: 7, host: 'c2', bootId: 'boot-a', pidNs: 'pid:[2]' },
      alive(500),
      'unseen',
    ],
    [
      'a record without a boot id (macOS, older versions), same host, live pid',
      { pid: 9, host: 'box' },
      alive(1),
      'alive',
    ],
    ['a record without a boot id naming our own pid', { pid: 7, host: 'box' }, alive(500), 'dead'],
  ] as const)('%s', (_, owner, probe, state) => {
    expect(ownerState(owner, self, probe)).toBe(state);
  });
});
