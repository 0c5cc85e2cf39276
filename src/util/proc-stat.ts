import { closeSync, openSync, readSync } from 'node:fs';

/**
 * Reading /proc/<pid>/stat (Linux): cheap enough to do for every process after every attempt,
 * and the one parser of it in the project.
 */

/** The parts of /proc/<pid>/stat the supervisor needs. */
export interface ProcInfo {
  state: string;
  ppid: number;
  /** Its process group. */
  pgrp: number;
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
export function readProc(file: string, space: Scratch, once = false): number | undefined {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return undefined; // gone meanwhile, or not ours to read
  }
  try {
    let length = 0;
    for (;;) {
      if (length === space.buffer.length)
        space.buffer = Buffer.concat([space.buffer, Buffer.allocUnsafe(space.buffer.length)]);
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
  let pgrp = 0;
  let startTicks = 0;
  for (let field = 0; field <= 19 && at < length; field++) {
    let value = 0;
    for (; at < length && bytes[at] !== 0x20; at++) value = value * 10 + ((bytes[at] ?? 0) - 0x30);
    if (field === 1) ppid = value;
    if (field === 2) pgrp = value;
    if (field === 19) startTicks = value;
    at++;
  }
  return { state, ppid, pgrp, startTicks };
}
