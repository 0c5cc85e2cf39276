import { closeSync, fsyncSync, openSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import path from 'node:path';

/**
 * Replace `file` with `text` so that a crash at any instant leaves either the old or
 * the new file, never a mix: write a temp file in the same folder, fsync it, rename it
 * over the original (atomic on POSIX), then fsync the folder so the rename itself is durable.
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
    writeSync(fd, text);
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    rmSync(temp, { force: true });
    throw error;
  }
  closeSync(fd);
  renameSync(temp, file);
  const dirFd = openSync(dir, 'r');
  try {
    fsyncSync(dirFd);
  } finally {
    closeSync(dirFd);
  }
}
