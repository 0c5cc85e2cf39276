import type { ChildProcess } from 'node:child_process';
import { readProcInfo } from '../util/proc-stat.js';
import { groupKiller, type GroupKiller } from './group-kill.js';
import { stopLeftovers } from './leftovers.js';

/** How a short-lived child of the supervisor (a hook, git) is bounded. */
export interface Bounds {
  timeoutMs: number;
  /** SIGTERM to SIGKILL. */
  graceMs: number;
  /** The tag its processes carry (tag.ts), so what it leaves running is found and stopped. */
  tag: string;
}

/** A started child, bounded: its killer (for the caller's own stop: a signal, the run's stop) and its end. */
export interface BoundedChild {
  killer: GroupKiller;
  /** Resolves once it exited and everything it left was stopped. */
  ended: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Bound a child started in a process group of its own (pid = pgid), as hooks and git are: stopped
 * at its timeout (SIGTERM, SIGKILL after the grace), and once it exits, whatever it left — its
 * group, its tagged escapees — stopped too, not waited for. `onTimeout` is told first.
 */
export function bound(child: ChildProcess, pid: number, bounds: Bounds, onTimeout: () => void): BoundedChild {
  const since = readProcInfo(pid)?.startTicks;
  const killer = groupKiller(pid, bounds.graceMs);
  const timer = setTimeout(() => {
    onTimeout();
    killer.terminate();
  }, bounds.timeoutMs);
  const ended = (async () => {
    const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) resolve([child.exitCode, child.signalCode]);
      else child.once('exit', (c, s) => resolve([c, s]));
    });
    clearTimeout(timer);
    killer.dispose();
    await stopLeftovers(pid, bounds.tag, bounds.graceMs, {
      force: killer.killedWith === 'SIGKILL',
      ...(since !== undefined && { since }),
    });
    return { code, signal };
  })();
  return { killer, ended };
}
