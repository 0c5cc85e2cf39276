import { readdirSync } from 'node:fs';
import { readProc, readProcInfo, scratch, type Scratch } from '../util/proc-stat.js';
import { carriesTag, TAG_VARIABLE } from './tag.js';

/**
 * Finding a tagged agent run's processes in /proc (Linux). A scan reads /proc/<pid>/stat of
 * every process, which is cheap, and the environment only of those started no earlier than
 * the agent (descendants cannot be older than it), which keeps the cost of the sweep after
 * every attempt low. Zombies are skipped: they are dead, waiting for a parent to reap them.
 *
 * /proc/<pid>/environ is the environment a process was started with: a process that clears
 * it (`env -i`), runs under another user, or overwrites that memory escapes the tag.
 */

/** A process found carrying the tag; its start time tells it apart from a later process given the same pid. */
export interface TaggedProcess {
  pid: number;
  startTicks: number;
}

const KEY = Buffer.from(`${TAG_VARIABLE}=`);

/** Whether the environment process `pid` was started with holds a tag under `tag`. */
export function environCarries(pid: number, tag: string, space: Scratch = scratch()): boolean {
  const length = readProc(`/proc/${pid}/environ`, space);
  if (length === undefined) return false;
  const env = space.buffer.subarray(0, length);
  // Any occurrence counts: a duplicate variable is still inherited by the children.
  for (let at = env.indexOf(KEY); at !== -1; at = env.indexOf(KEY, at + 1)) {
    if (at > 0 && env[at - 1] !== 0) continue; // the key inside another variable's value
    const end = env.indexOf(0, at);
    if (carriesTag(env.toString('utf8', at + KEY.length, end === -1 ? length : end), tag)) return true;
  }
  return false;
}

/** The supervisor's own pid and its ancestors': never swept, whatever their environment. */
export function selfAndAncestors(): Set<number> {
  const pids = new Set<number>([process.pid]);
  const space = scratch();
  for (let pid = process.ppid; pid > 1 && !pids.has(pid); pid = readProcInfo(pid, space)?.ppid ?? 0) pids.add(pid);
  return pids;
}

/** Options of a scan. */
export interface ScanOptions {
  /** Start time (clock ticks since boot) of the agent: processes started earlier are not read further. */
  since?: number;
  /** Pids never returned (the supervisor and its ancestors). */
  skip: ReadonlySet<number>;
}

/** Every live process carrying `tag`, or undefined when /proc cannot be listed. */
export function findTagged(tag: string, options: ScanOptions): TaggedProcess[] | undefined {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return undefined;
  }
  const space = scratch();
  const since = options.since ?? 0;
  const found: TaggedProcess[] = [];
  for (const entry of entries) {
    const first = entry.charCodeAt(0);
    if (first < 0x30 || first > 0x39) continue; // not a pid: self, sys, meminfo, …
    const pid = Number(entry);
    if (options.skip.has(pid)) continue;
    const info = readProcInfo(pid, space);
    if (info === undefined || info.state === 'Z' || info.state === 'X' || info.startTicks < since) continue;
    if (environCarries(pid, tag, space)) found.push({ pid, startTicks: info.startTicks });
  }
  return found;
}

/** Whether `found` is still the very process found (same start time, not a zombie) and still carries `tag`. */
export function stillTagged(found: TaggedProcess, tag: string, space: Scratch = scratch()): boolean {
  const info = readProcInfo(found.pid, space);
  if (info === undefined || info.state === 'Z' || info.state === 'X' || info.startTicks !== found.startTicks)
    return false;
  return environCarries(found.pid, tag, space);
}
