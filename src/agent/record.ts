import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { isAlive, procStat } from '../util/process.js';
import { stopLeftovers } from './leftovers.js';

/**
 * The record of the agent that is running, kept in the state folder while it runs. Agents run
 * in a group (and session) of their own, so `kill -9` of the supervisor does not reach them;
 * with the record, the next run stops what the crashed one left before starting the task again.
 */
export interface AgentRecord {
  /** The agent's pid, which is also its process-group id. */
  pid: number;
  /** The tag every process the agent started inherits (see leftovers.ts). */
  tag: string;
  host: string;
  /** Start time of the process in clock ticks since boot (Linux), to tell a reused pid apart. */
  startTicks?: number;
  role: string;
  task: string;
  since: string;
}

/** Write the record of a running agent (best effort: a failed write must not stop the attempt). */
export function recordAgent(file: string, record: Pick<AgentRecord, 'pid' | 'tag' | 'role' | 'task'>): void {
  const ticks = procStat(record.pid)?.startTicks;
  const full: AgentRecord = { ...record, host: hostname(), since: new Date().toISOString(), ...(ticks !== undefined && { startTicks: ticks }) };
  try {
    writeFileSync(file, `${JSON.stringify(full)}\n`, { flag: 'w', mode: 0o600 });
  } catch {
    // The state folder is gone or full: the attempt still runs, and is still bounded.
  }
}

/** Remove the record once everything the agent started is gone. */
export function forgetAgent(file: string): void {
  rmSync(file, { force: true });
}

/**
 * Stop what a crashed supervisor left running on this host: the agent's group and every
 * process carrying its tag, SIGTERM then SIGKILL after `graceMs`. Returns the record of what
 * was stopped. Call it only while holding the board's lock, so the record cannot be a live run's.
 */
export async function stopLeftoverAgent(file: string, graceMs: number): Promise<AgentRecord | undefined> {
  let record: AgentRecord;
  try {
    record = JSON.parse(readFileSync(file, 'utf8')) as AgentRecord;
  } catch {
    return undefined;
  }
  const here = record.host === hostname() && Number.isInteger(record.pid) && record.pid > 1 && typeof record.tag === 'string';
  if (here) await stopLeftovers(sameAgent(record) ? record.pid : null, record.tag, graceMs);
  forgetAgent(file);
  return here ? record : undefined;
}

// A pgid is the pid of the process that made the group, and the kernel never hands out a pid
// still in use as a pgid. So a live leader is the agent only if its start time matches (else
// the pid was reused); a group whose leader is gone is still the agent's.
function sameAgent(record: AgentRecord): boolean {
  if (!isAlive(record.pid)) return true;
  const ticks = procStat(record.pid)?.startTicks;
  return ticks !== undefined && ticks === record.startTicks;
}
