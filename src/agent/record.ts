import { closeSync, ftruncateSync, readdirSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import type { EventLeftoverAgent } from '../event-types.js';
import { openExclusive } from '../fs/safe-open.js';
import { readProcInfo } from '../util/proc-stat.js';
import { isAlive } from '../util/process.js';
import { stopLeftovers } from './leftovers.js';

/**
 * The record of the agent that is running, kept in the state folder while it runs. Agents run
 * in a group (and session) of their own, so `kill -9` of the supervisor does not reach them;
 * with the record, the next run stops what the crashed one left before starting the task again.
 */
export type AgentRecord = EventLeftoverAgent;

/** A run's record: one run holds the board's lock at a time, so one record. */
const RECORD = '.kanban-supervisor/agent.json';
/** `try`'s records, one per try process (several may run beside a run and each other), never read by a run. */
const TRY_RECORDS = '.kanban-supervisor/try';
const TRY_RECORD = /^agent-(\d+)-(\d+)\.json$/;

/** Whose agent a record is: the run's, or this try process's. */
export type RecordOwner = 'run' | 'try';

// A try's record is named by its process's pid and start time: a try that crashed is told
// apart from a live one, even when its pid was given to another process since.
function recordPath(owner: RecordOwner): string {
  if (owner === 'run') return RECORD;
  return `${TRY_RECORDS}/agent-${process.pid}-${readProcInfo(process.pid)?.startTicks ?? 0}.json`;
}

/**
 * The open record of one attempt's agent: written before it starts, completed once it has a pid, removed at its end.
 */
export interface RecordHandle {
  started(pid: number): void;
  remove(): void;
}

/**
 * Record an agent about to start. Opened exclusively and never through a planted symlink, so
 * a link planted at its name stops the run (UnwritableError) before anything runs; a write
 * failing once it runs (disk full) only loses the record.
 */
export function recordAgent(
  boardDir: string,
  record: Pick<AgentRecord, 'tag' | 'role' | 'task'>,
  owner: RecordOwner = 'run',
): RecordHandle {
  const relative = recordPath(owner);
  const fd = openExclusive(boardDir, relative, { mode: 0o600 });
  let full: AgentRecord = { ...record, host: hostname(), since: new Date().toISOString() };
  // Written over in place and cut to length after, never truncated to zero first: on ext4 a
  // file cut to zero and written again is flushed to disk when closed (auto_da_alloc), which
  // made the close and removal of each attempt's record cost ~0.7 ms a step.
  const write = () => {
    try {
      const bytes = Buffer.from(`${JSON.stringify(full)}\n`);
      writeSync(fd, bytes, 0, bytes.length, 0);
      ftruncateSync(fd, bytes.length);
    } catch {
      // The state folder is full: the attempt still runs, and is still bounded.
    }
  };
  write();
  return {
    started(pid) {
      const ticks = readProcInfo(pid)?.startTicks; // now, before the pid could be reused
      full = { ...full, pid, ...(ticks !== undefined && { startTicks: ticks }) };
      write();
    },
    remove() {
      closeSync(fd);
      rmSync(path.join(boardDir, relative), { force: true });
    },
  };
}

/**
 * Stop what a crashed supervisor left running on this host: the agent's group and every
 * process carrying its tag, SIGTERM then SIGKILL after `graceMs`. Returns the record of what
 * was stopped. Call it only while holding the board's lock, so the record cannot be a live run's.
 */
export async function stopLeftoverAgent(boardDir: string, graceMs: number): Promise<AgentRecord | undefined> {
  return takeOver(path.join(boardDir, RECORD), graceMs);
}

/**
 * Stop what crashed `try` processes left running: the agents of try records whose owner (pid
 * and start time) is gone. A live try's record is never touched, nor the run's. Returns the
 * records of what was stopped.
 */
export async function stopLeftoverTries(boardDir: string, graceMs: number): Promise<AgentRecord[]> {
  let names: string[];
  try {
    names = readdirSync(path.join(boardDir, TRY_RECORDS));
  } catch {
    return []; // no try has run here
  }
  const stopped: AgentRecord[] = [];
  for (const name of names) {
    const owner = TRY_RECORD.exec(name);
    if (!owner || ownerLives(Number(owner[1]), Number(owner[2]))) continue;
    const record = await takeOver(path.join(boardDir, TRY_RECORDS, name), graceMs);
    if (record) stopped.push(record);
  }
  return stopped;
}

// Without /proc (start time 0, or unreadable) a live pid is taken for the owner: better a
// crashed try's agent left running than a live try's agent stopped.
function ownerLives(pid: number, startTicks: number): boolean {
  if (pid === process.pid) return true;
  const ticks = readProcInfo(pid)?.startTicks;
  if (ticks === undefined || startTicks === 0) return isAlive(pid);
  return ticks === startTicks;
}

async function takeOver(file: string, graceMs: number): Promise<AgentRecord | undefined> {
  let record: AgentRecord;
  try {
    record = JSON.parse(readFileSync(file, 'utf8')) as AgentRecord;
  } catch {
    rmSync(file, { force: true }); // torn by the crash, or never written
    return undefined;
  }
  const here = record.host === hostname() && typeof record.tag === 'string' && record.tag !== '';
  if (here)
    await stopLeftovers(sameAgent(record) ? (record.pid ?? null) : null, record.tag, graceMs, {
      ...(record.startTicks !== undefined && { since: record.startTicks }),
    });
  rmSync(file, { force: true });
  return here ? record : undefined;
}

// A pgid is the pid of the process that made the group, and the kernel never hands out a pid
// still in use as a pgid. So a live leader is the agent only if its start time matches (else
// the pid was reused); a group whose leader is gone is still the agent's.
function sameAgent(record: AgentRecord): boolean {
  if (record.pid === undefined || record.pid <= 1) return false;
  if (!isAlive(record.pid)) return true;
  const ticks = readProcInfo(record.pid)?.startTicks;
  return ticks !== undefined && ticks === record.startTicks;
}
