import { readFileSync, readlinkSync } from 'node:fs';
import { hostname } from 'node:os';
import { readProcInfo } from '../util/proc-stat.js';
import { isAlive } from '../util/process.js';

/**
 * Who a process is, as far as another process can tell (SPEC §5: identity by pid and start time,
 * never by pid alone). A pid names a process only within one pid namespace of one boot of one
 * kernel: the supervisor is pid 1 (or 7 under tini) in every container it runs in.
 */
export interface ProcessIdentity {
  pid: number;
  host: string;
  /** /proc/sys/kernel/random/boot_id: the same in every container of one kernel, new at each boot (Linux). */
  bootId?: string;
  /** The pid namespace (`pid:[4026531836]`): pids of another one cannot be looked up from here (Linux). */
  pidNs?: string;
  /** Start time in clock ticks since boot (Linux), to tell a reused pid apart. */
  startTicks?: number;
}

/**
 * How a lock owner stands: `alive` or `dead` when its process can be looked up; `elsewhere` on
 * another machine and `unseen` in another pid namespace of this kernel (another container), where
 * only the lock's refreshes tell whether it lives.
 */
export type OwnerState = 'alive' | 'dead' | 'elsewhere' | 'unseen';

/** What /proc (or kill(pid, 0) where there is none) says of a pid in our own pid namespace. */
export type PidProbe = (pid: number) => { alive: boolean; startTicks?: number };

/** This process's identity, read from /proc where there is one (macOS: pid and hostname only). */
export function selfIdentity(): ProcessIdentity {
  const bootId = readOr(() => readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim());
  const pidNs = readOr(() => readlinkSync('/proc/self/ns/pid'));
  const startTicks = readProcInfo('self')?.startTicks;
  return {
    pid: process.pid,
    host: hostname(),
    ...(bootId && { bootId }),
    ...(pidNs && { pidNs }),
    ...(startTicks !== undefined && { startTicks }),
  };
}

/** The real probe: alive unless gone or a zombie, with its start time where /proc has it. */
export const probePid: PidProbe = (pid) => {
  const startTicks = readProcInfo(pid)?.startTicks;
  return { alive: isAlive(pid), ...(startTicks !== undefined && { startTicks }) };
};

/**
 * Judge a recorded owner from this process (pure: the probe is passed in). The record is ours
 * to look up only on this boot and in this pid namespace; there, a pid that is our own (we are
 * taking the lock, so it is not held by us), gone, or started at another time is a dead owner
 * whose pid was reused. Records without a boot id (macOS, older versions) are judged by hostname
 * and kill(pid, 0), as before.
 */
export function ownerState(owner: ProcessIdentity, self: ProcessIdentity, probe: PidProbe): OwnerState {
  if (owner.bootId !== undefined && self.bootId !== undefined) {
    // Another boot of this host: everything of the old one is gone; another host's boot: its own business.
    if (owner.bootId !== self.bootId) return owner.host === self.host ? 'dead' : 'elsewhere';
    if (owner.pidNs !== undefined && self.pidNs !== undefined && owner.pidNs !== self.pidNs) return 'unseen';
  } else if (owner.host !== self.host) {
    return 'elsewhere';
  }
  if (owner.pid === self.pid) return 'dead';
  const seen = probe(owner.pid);
  if (!seen.alive) return 'dead';
  if (owner.startTicks !== undefined && seen.startTicks !== undefined && owner.startTicks !== seen.startTicks)
    return 'dead';
  return 'alive';
}

function readOr(read: () => string): string | undefined {
  try {
    return read() || undefined;
  } catch {
    return undefined;
  }
}
