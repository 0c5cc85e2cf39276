import { randomBytes } from 'node:crypto';
import { closeSync, constants, fsyncSync, openSync, readdirSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import path from 'node:path';
import { isAlive } from '../util/process.js';

/**
 * Replace `file` with `text` so that a crash at any instant leaves the old or the new file,
 * never a mix: write a temp file in the same folder, fsync it, rename it over the original
 * (atomic on POSIX; it replaces a symlink planted there rather than writing through it),
 * then fsync the folder so the rename itself is durable. The temp file's name is random and
 * it is created exclusively without following symlinks, so a link planted at a guessable
 * name cannot redirect the write. `stillSame`, checked just before the rename, may call it
 * off (returns false): a person saved the file meanwhile.
 */
export function writeFileAtomic(file: string, text: string, stillSame: () => boolean = () => true): boolean {
  const dir = path.dirname(file);
  const temp = path.join(dir, `.${path.basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  let mode = 0o644;
  try {
    mode = statSync(file).mode & 0o777;
  } catch {
    // new file: default mode
  }
  const fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, mode);
  let renamed = false;
  try {
    const bytes = Buffer.from(text, 'utf8');
    for (let written = 0; written < bytes.length; ) written += writeSync(fd, bytes, written);
    fsyncSync(fd);
    if (!stillSame()) return false;
    renameSync(temp, file);
    renamed = true;
  } finally {
    closeSync(fd);
    if (!renamed) rmSync(temp, { force: true });
  }
  const dirFd = openSync(dir, 'r');
  try {
    fsyncSync(dirFd);
  } finally {
    closeSync(dirFd);
  }
  return true;
}

/** Remove the temp files of board writes by supervisors that died mid-write (call only while holding the lock). */
export function removeDeadTemps(file: string): void {
  const dir = path.dirname(file);
  const prefix = `.${path.basename(file)}.`;
  for (const entry of readdirSync(dir)) {
    if (!entry.startsWith(prefix) || !entry.endsWith('.tmp')) continue;
    const pid = Number(entry.slice(prefix.length).split('.')[0]);
    if (pid > 0 && pid !== process.pid && !isAlive(pid)) rmSync(path.join(dir, entry), { force: true });
  }
}
