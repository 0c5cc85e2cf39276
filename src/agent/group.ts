import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';

/**
 * An agent's process group: the signals that stop it, and the record that lets the next
 * run stop an agent a crashed supervisor left behind. Agents run in their own group
 * (and session), so `kill -9` of the supervisor does not reach them; without the record
 * an orphan could keep working on the task the re-run starts again.
 */

/** The record of the agent that is running, kept beside the board while it runs. */
export interface AgentRecord {
  /** The agent's pid, which is also its process-group id. */
  pid: number;
  host: string;
  /** Start time of the process in clock ticks since boot (Linux), to tell a reused pid apart. */
  startTicks?: number;
  role: string;
  task: string;
  since: string;
}

/** Send `signal` to every process of the group; false when the group is already gone. */
export function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false; // ESRCH: nothing left in the group (EPERM: not ours to signal)
  }
}

/** What /proc/<pid>/stat says of a process (Linux), or undefined. */
export function procStat(pid: number | string): { state: string; pgrp: number; startTicks: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may contain spaces and parentheses: count from the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0] ?? '', pgrp: Number(fields[2]), startTicks: Number(fields[19]) };
  } catch {
    return undefined;
  }
}

/** Start time of a process in clock ticks since boot (field 22 of /proc/<pid>/stat), if this system tells. */
export function startTicks(pid: number): number | undefined {
  return procStat(pid)?.startTicks;
}

/**
 * Whether any process of the group still runs. A dead process stays a zombie until its
 * parent reaps it, and an orphan's parent is init, which may take seconds: zombies are
 * counted as gone where /proc tells them apart.
 */
export function groupRuns(pgid: number): boolean {
  if (!signalGroup(pgid, 0)) return false;
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return true;
  }
  return entries.some((entry) => {
    if (!/^\d+$/.test(entry)) return false;
    const stat = procStat(entry);
    return stat !== undefined && stat.pgrp === pgid && stat.state !== 'Z';
  });
}

/**
 * Write the record of a running agent; resolves once it is written (best effort: a failed
 * write must not stop the attempt). The write goes to libuv's thread pool while the agent
 * starts, instead of holding up the supervisor right after every spawn.
 */
export async function recordAgent(file: string, record: Omit<AgentRecord, 'host' | 'startTicks' | 'since'>): Promise<void> {
  const full: AgentRecord = { ...record, host: hostname(), since: new Date().toISOString() };
  const ticks = startTicks(record.pid); // now, before the pid could be reused
  if (ticks !== undefined) full.startTicks = ticks;
  try {
    await writeFile(file, `${JSON.stringify(full)}\n`);
  } catch {
    // The state folder is gone or full; the attempt itself still runs and is still bounded.
  }
}

/** Remove the record once the agent's group is gone. */
export function forgetAgent(file: string): void {
  rmSync(file, { force: true });
}

/**
 * Stop the agent a crashed supervisor left running, if its group is still alive on this
 * host: SIGTERM, then SIGKILL after `graceMs`. Returns the record of what was stopped.
 * Call it only while holding the board's lock, so the record cannot belong to a live run.
 */
export async function stopLeftoverAgent(file: string, graceMs: number): Promise<AgentRecord | undefined> {
  let record: AgentRecord;
  try {
    record = JSON.parse(readFileSync(file, 'utf8')) as AgentRecord;
  } catch {
    return undefined;
  }
  const ours = record.host === hostname() && Number.isInteger(record.pid) && record.pid > 1 && sameGroup(record);
  if (ours) {
    signalGroup(record.pid, 'SIGTERM');
    if (!(await groupGone(record.pid, graceMs))) {
      signalGroup(record.pid, 'SIGKILL');
      await groupGone(record.pid, 1000);
    }
  }
  forgetAgent(file);
  return ours ? record : undefined;
}

// A pgid is the pid of the process that made the group, and the kernel never hands out a
// pid still in use as a pgid. So a live group whose leader is gone is still the agent's;
// a live leader is the agent only if its start time matches (else the pid was reused).
function sameGroup(record: AgentRecord): boolean {
  if (!groupRuns(record.pid)) return false;
  const ticks = startTicks(record.pid);
  if (ticks !== undefined) return ticks === record.startTicks;
  if (startTicks(process.pid) !== undefined) return true; // /proc works and the leader is gone
  return !isProcess(record.pid); // no /proc: trust only a group whose leader is gone
}

function isProcess(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function groupGone(pgid: number, withinMs: number): Promise<boolean> {
  const deadline = performance.now() + withinMs;
  while (groupRuns(pgid)) {
    if (performance.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return true;
}
