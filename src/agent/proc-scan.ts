import { closeSync, openSync, readdirSync, readSync } from 'node:fs';
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

/** The parts of /proc/<pid>/stat a sweep needs. */
export interface ProcInfo {
  state: string;
  ppid: number;
  /** Start time in clock ticks since boot (field 22). */
  startTicks: number;
}

/** Buffers one scan reuses for its many small reads (never shared between scans). */
export interface Scratch {
  buffer: Buffer;
}

/** A fresh scratch buffer for a scan. */
export function scratch(): Scratch {
  return { buffer: Buffer.allocUnsafe(16 * 1024) };
}

/**
 * Read a /proc file into the scratch buffer (growing it); the bytes read, or undefined if it
 * cannot be read. `once`: one read is the whole file (stat is generated whole, well under
 * the buffer), which saves a syscall on the path taken for every process.
 */
function readProc(file: string, space: Scratch, once = false): number | undefined {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return undefined; // gone meanwhile, or not ours to read
  }
  try {
    let length = 0;
    for (;;) {
      if (length === space.buffer.length) space.buffer = Buffer.concat([space.buffer, Buffer.allocUnsafe(space.buffer.length)]);
      const got = readSync(fd, space.buffer, length, space.buffer.length - length, null);
      length += got;
      if (got === 0 || once) return length;
    }
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** What /proc/<pid>/stat says of a process, or undefined when it is gone. */
export function readProcInfo(pid: number | 'self', space: Scratch = scratch()): ProcInfo | undefined {
  const length = readProc(`/proc/${pid}/stat`, space, true);
  if (length === undefined) return undefined;
  const bytes = space.buffer;
  // The command name (field 2) may hold spaces and parentheses: count from the last ')'.
  // Fields after it, from 0: state, ppid, …, start time at 19. Scanned, not split: this runs for every process.
  let at = bytes.lastIndexOf(0x29, length - 1) + 2;
  if (at === 1) return undefined;
  const state = String.fromCharCode(bytes[at] ?? 0);
  let ppid = 0;
  let startTicks = 0;
  for (let field = 0; field <= 19 && at < length; field++) {
    let value = 0;
    for (; at < length && bytes[at] !== 0x20; at++) value = value * 10 + ((bytes[at] ?? 0) - 0x30);
    if (field === 1) ppid = value;
    if (field === 19) startTicks = value;
    at++;
  }
  return { state, ppid, startTicks };
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
  if (info === undefined || info.state === 'Z' || info.state === 'X' || info.startTicks !== found.startTicks) return false;
  return environCarries(found.pid, tag, space);
}
