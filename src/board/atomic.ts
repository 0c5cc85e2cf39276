import { closeSync, fsyncSync, openSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import path from 'node:path';

/**
 * Replace `file` with `text` so that a crash at any instant leaves either the old or
 * the new file, never a mix: write a temp file in the same folder, fsync it, rename it
 * over the original (atomic on POSIX), then fsync the folder so the rename itself is durable.
 * The temp file is `.<name>.<pid>.tmp`: a supervisor killed mid-write leaves it, and the
 * next run that takes the lock removes it (lock.ts).
 */
export function writeFileAtomic(file: string, text: string): void {
  const dir = path.dirname(file);
  const temp = path.join(dir, `.${path.basename(file)}.${process.pid}.tmp`);
  let mode = 0o644;
  try {
    mode = statSync(file).mode & 0o7777;
  } catch {
    // new file: default mode
  }
  const fd = openSync(temp, 'w', mode);
  try {
    const bytes = Buffer.from(text, 'utf8');
    for (let written = 0; written < bytes.length; ) written += writeSync(fd, bytes, written);
    fsyncSync(fd);
    closeSync(fd);
    renameSync(temp, file);
  } catch (error) {
    try {
      closeSync(fd);
    } catch {
      // already closed
    }
    rmSync(temp, { force: true });
    throw error;
  }
  const dirFd = openSync(dir, 'r');
  try {
    fsyncSync(dirFd);
  } finally {
    closeSync(dirFd);
  }
}
