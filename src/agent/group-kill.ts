import { readdirSync } from 'node:fs';
import { readProcInfo, scratch } from '../util/proc-stat.js';

/** Send `signal` to every process of a group; false when the group is already gone. */
export function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false; // ESRCH: nothing left in the group (EPERM: not ours to signal)
  }
}

/**
 * Whether any process of the group still runs. A dead process stays a zombie until its
 * parent reaps it, and an orphan's parent is init, which may take seconds: zombies count as
 * gone where /proc tells them apart.
 */
export function groupRuns(pgid: number): boolean {
  if (!signalGroup(pgid, 0)) return false;
  const space = scratch();
  const stats = procEntries().map((pid) => readProcInfo(Number(pid), space));
  if (stats.length === 0) return true; // no /proc: trust kill(0)
  return stats.some((stat) => stat !== undefined && stat.pgrp === pgid && stat.state !== 'Z');
}

function procEntries(): string[] {
  try {
    return readdirSync('/proc').filter((entry) => /^\d+$/.test(entry));
  } catch {
    return [];
  }
}

/** Stops an agent's process group: SIGTERM, then SIGKILL once the grace period has passed. */
export interface GroupKiller {
  /** SIGTERM now, SIGKILL after the grace period (once; later calls do nothing more). */
  terminate(): void;
  /** SIGKILL now. */
  kill(): void;
  /** The strongest signal sent so far. */
  readonly killedWith: 'SIGTERM' | 'SIGKILL' | null;
  /** Cancel a pending SIGKILL. */
  dispose(): void;
}

/** The kill policy of one agent's process group (its pid is the group id). */
export function groupKiller(pgid: number, graceMs: number): GroupKiller {
  let killedWith: GroupKiller['killedWith'] = null;
  let timer: NodeJS.Timeout | undefined;
  const send = (signal: 'SIGTERM' | 'SIGKILL') => {
    // A SIGTERM after a SIGKILL still reaches unreaped zombies; report the SIGKILL.
    if (signalGroup(pgid, signal) && killedWith !== 'SIGKILL') killedWith = signal;
  };
  return {
    terminate() {
      if (timer || killedWith === 'SIGKILL') return;
      send('SIGTERM');
      timer = setTimeout(() => send('SIGKILL'), Math.min(graceMs, 2 ** 31 - 1));
      timer.unref();
    },
    kill() {
      clearTimeout(timer);
      send('SIGKILL');
    },
    get killedWith() {
      return killedWith;
    },
    dispose() {
      clearTimeout(timer);
    },
  };
}
