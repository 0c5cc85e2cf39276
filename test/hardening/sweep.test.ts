import { spawn } from 'node:child_process';
import { readFileSync, symlinkSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { stillTagged } from '../../src/agent/proc-scan.js';
import { readProcInfo } from '../../src/util/proc-stat.js';
import { sweepTagged } from '../../src/agent/sweep.js';
import { TAG_VARIABLE } from '../../src/agent/tag.js';
import { ROOT, tempDir } from '../helpers.js';
import { fixture, isRunning, recordedPids, survivors, waitFor } from './procs.js';

const SWEEP_OWN_TAG = path.join(ROOT, 'test', 'fixtures', 'sweep', 'sweep-own-tag.mjs');
const linux = process.platform === 'linux';

/** Every pid a test started or recorded, SIGKILLed after it whatever happened. */
const started: number[] = [];
afterEach(() => {
  for (const pid of started.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone already
    }
  }
});

/** The test's environment, with `tag` as the agent tag (none when undefined). */
function envWith(tag: string | undefined): NodeJS.ProcessEnv {
  const { [TAG_VARIABLE]: _inherited, ...env } = process.env;
  return tag === undefined ? env : { ...env, [TAG_VARIABLE]: tag };
}

/** Start `command` in a group of its own, tagged with `tag`; returns its pid. */
function startTagged(tag: string | undefined, command: string, args: string[]): number {
  const child = spawn(command, args, { env: envWith(tag), detached: true, stdio: 'ignore' });
  child.unref();
  if (child.pid === undefined) throw new Error(`could not start ${command}`);
  started.push(child.pid);
  return child.pid;
}

/** By pid: no such process (ESRCH), or only its zombie, dead and waiting for init to reap it. */
function goneOrZombie(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
  return readProcInfo(pid)?.state === 'Z';
}

/** A tag no other test uses. */
const newTag = () => `ks1-test${randomBytes(6).toString('hex')}-1-implementor`;

/** Pids in a fixture's pid file once `count` are there; they are killed after the test too. */
async function pidsIn(file: string, count: number): Promise<number[]> {
  await waitFor(() => recordedPids(file).length >= count, `${count} pids in ${file}`);
  const pids = recordedPids(file);
  started.push(...pids);
  return pids;
}

describe.skipIf(!linux)('sweeping an agent run by its tag', () => {
  it(
    'stops processes that left the group or the session (setsid, detached, set -m job, double fork) ' +
      'after the agent exits, and nothing untagged',
    async () => {
      const tag = newTag();
      const pidFile = path.join(tempDir(), 'pids');
      const agent = execa('bash', [fixture('leaves-escapees.sh'), pidFile], {
        env: envWith(tag),
        extendEnv: false,
        reject: false,
      });
      const since = startTicksOf(agent.pid!);
      expect(since).toBeTypeOf('number');
      // Decoys, started after the agent so that only the tag can tell them apart.
      const untagged = startTagged(undefined, 'sleep', ['300']);
      const otherRun = startTagged('ks1-someone-else-1-implementor', 'sleep', ['300']);
      const lookalike = startTagged(`${tag}x`, 'sleep', ['300']);
      const nested = startTagged(`${tag}:ks1-inner-2-manager`, 'sleep', ['300']);
      expect((await agent).exitCode).toBe(0);
      const escapees = await pidsIn(pidFile, 4);
      expect(escapees.filter(isRunning)).toHaveLength(4); // the agent is gone, its four children are not

      const result = await sweepTagged(tag, { since: since!, graceMs: 2000 });
      expect(result).toMatchObject({ supported: true, survivors: [] });
      expect(await survivors([...escapees, nested])).toEqual([]);
      for (const pid of escapees) expect(goneOrZombie(pid), `pid ${pid}`).toBe(true);
      expect([untagged, otherRun, lookalike].filter(isRunning)).toEqual([untagged, otherRun, lookalike]);
      if (result.supported) expect(result.found.sort()).toEqual([...escapees, nested].sort());
    },
  );

  it('SIGKILLs a tagged process that ignores SIGTERM once the grace is over, and its child too', async () => {
    const tag = newTag();
    const pidFile = path.join(tempDir(), 'pids');
    startTagged(tag, 'node', [fixture('ignores-sigterm.mjs'), pidFile]);
    const pids = await pidsIn(pidFile, 2);
    const before = performance.now();
    const result = await sweepTagged(tag, { graceMs: 400 });
    expect(performance.now() - before).toBeGreaterThanOrEqual(400);
    expect(result).toMatchObject({ supported: true, survivors: [], terminated: [] });
    if (result.supported) expect(result.killed.sort()).toEqual([...pids].sort());
    expect(pids.filter(isRunning)).toEqual([]);
  });

  it('stops children forked while it waits for the grace', async () => {
    const tag = newTag();
    const pidFile = path.join(tempDir(), 'pids');
    startTagged(tag, 'node', [fixture('forks-on-sigterm.mjs'), pidFile]);
    const [leader] = await pidsIn(pidFile, 1);
    const result = await sweepTagged(tag, { graceMs: 1000 });
    const all = await pidsIn(pidFile, 2); // the leader and the child it forked on SIGTERM
    expect(result).toMatchObject({ supported: true, survivors: [] });
    // The child may get its SIGTERM before it set out to ignore it: found and stopped is what counts.
    if (result.supported) expect(result.found.sort()).toEqual(all.sort());
    if (result.supported) expect(result.killed).toContain(leader);
    expect(all.filter(isRunning)).toEqual([]);
  });

  it('continues a stopped process so that SIGTERM alone ends it', async () => {
    const tag = newTag();
    const pid = startTagged(tag, 'sleep', ['300']);
    await waitFor(() => isRunning(pid), 'sleep to start');
    process.kill(pid, 'SIGSTOP');
    const result = await sweepTagged(tag, { graceMs: 5000 });
    expect(result).toMatchObject({ supported: true, terminated: [pid], killed: [], survivors: [] });
    if (result.supported) expect(result.elapsedMs).toBeLessThan(2000);
  });

  it('after a supervisor was killed with kill -9, finds its agent run by the recorded tag alone', async () => {
    const tag = newTag();
    const pidFile = path.join(tempDir(), 'pids');
    // A stand-in supervisor: starts the agent in a group of its own, then is killed outright.
    const supervisor = execa(
      'node',
      [
        '-e',
        `require('node:child_process').spawn('bash', [${JSON.stringify(fixture('leaves-escapees.sh'))}, ` +
          `${JSON.stringify(pidFile)}, ], { detached: true, stdio: 'ignore' }); setInterval(() => {}, 1000)`,
      ],
      {
        env: envWith(tag),
        extendEnv: false,
        reject: false,
      },
    );
    const escapees = await pidsIn(pidFile, 4);
    supervisor.kill('SIGKILL');
    await supervisor;
    const result = await sweepTagged(tag, { graceMs: 2000 });
    expect(result).toMatchObject({ supported: true, survivors: [] });
    expect(await survivors(escapees)).toEqual([]);
  });

  it('never stops the supervisor itself or its ancestors, even when they carry the tag', async () => {
    const tag = newTag();
    const parent = await execa('bash', ['-c', 'node "$0"; echo parent still here', SWEEP_OWN_TAG], {
      env: envWith(tag),
      extendEnv: false,
      reject: false,
    });
    expect(parent.exitCode).toBe(0);
    const [line, last] = parent.stdout.split('\n');
    expect(JSON.parse(line ?? '')).toMatchObject({ supported: true, found: [] });
    expect(last).toBe('parent still here');
  });

  it('looks only at processes started since the agent when told its start time', async () => {
    const tag = newTag();
    const older = startTagged(tag, 'sleep', ['300']);
    await waitFor(() => isRunning(older), 'sleep to start');
    const since = startTicksOf(older)! + 1000; // as if the agent had started 10 s later
    expect(await sweepTagged(tag, { since, graceMs: 500 })).toMatchObject({ supported: true, found: [] });
    expect(isRunning(older)).toBe(true);
    expect(await sweepTagged(tag, { graceMs: 500 })).toMatchObject({ supported: true, found: [older] });
  });

  it('reads the parent and start time right even when the command name holds spaces and parentheses', async () => {
    const named = path.join(tempDir(), 'x) 1 2 (y');
    symlinkSync('/bin/sleep', named);
    const pid = startTagged(undefined, named, ['300']);
    await waitFor(() => readFileSync(`/proc/${pid}/stat`, 'utf8').includes('(x) 1 2 (y)'), 'the renamed sleep to run');
    expect(readProcInfo(pid)).toMatchObject({ ppid: process.pid, startTicks: startTicksOf(pid) });
  });

  it('never signals a pid whose process is no longer the one found', async () => {
    const tag = newTag();
    const pid = startTagged(tag, 'sleep', ['300']);
    await waitFor(() => isRunning(pid), 'sleep to start');
    const ticks = startTicksOf(pid)!;
    expect(stillTagged({ pid, startTicks: ticks }, tag)).toBe(true);
    expect(stillTagged({ pid, startTicks: ticks - 1 }, tag)).toBe(false); // same pid, another process
    expect(stillTagged({ pid, startTicks: ticks }, `${tag}-other`)).toBe(false);
  });
});

describe('sweeping elsewhere than on Linux', () => {
  it('does nothing and says it is not supported', async () => {
    const signalled: number[] = [];
    const result = await sweepTagged(newTag(), { platform: 'darwin', kill: (pid) => signalled.push(pid) });
    expect(result).toEqual({ supported: false });
    expect(signalled).toEqual([]);
  });
});

function startTicksOf(pid: number): number | undefined {
  return readProcInfo(pid)?.startTicks;
}
