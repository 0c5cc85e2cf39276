import { randomBytes } from 'node:crypto';
import { closeSync, fchmodSync, fchownSync, fsyncSync, lstatSync, renameSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';
import { openFileIn, type OpenOptions } from './safe-open.js';
import { openRealDir } from './real-dir.js';
import { movedWhileOpening, notARegularFile, plantedSymlink, unwritableFrom } from './refuse.js';

/** Write all of `bytes` to `fd`, looping on partial writes; a failure names `shown` and the cause. */
export function writeWhole(fd: number, bytes: Uint8Array, shown: string): void {
  try {
    for (let written = 0; written < bytes.length;) written += writeSync(fd, bytes, written, bytes.length - written);
  } catch (error) {
    throw unwritableFrom(shown, 'write', error);
  }
}

/**
 * The temp file name beside `name`: the pid, so a later run can remove
 * a dead run's leftover, and a random part nobody can plant in advance.
 */
export function tempName(name: string, random = randomBytes(6).toString('hex')): string {
  return `.${name}.${process.pid}-${random}.tmp`;
}

/**
 * Replace `relative` with `text` so that a crash at any instant leaves the old or the new file,
 * never a mix, and nothing outside the board is touched: a temp file created O_EXCL|O_NOFOLLOW
 * in the same real folder, written, fsynced, renamed over the target (rename replaces a name,
 * it never follows one), then the folder fsynced so the rename itself is durable. A symlink or
 * a non-file at `relative` is refused; the temp file is removed on any failure. Keeps the mode.
 * `stillSame`, asked just before the rename, may call the write off (returns false): a person
 * saved the file meanwhile. `text` may be a function that writes the content to the temp file's
 * fd itself (a page streamed out in pieces, never held whole).
 */
export function replaceFileAtomic(
  boardDir: string,
  relative: string,
  text: string | Uint8Array | ((fd: number) => void),
  options: OpenOptions & { stillSame?: () => boolean } = {},
): boolean {
  const name = path.posix.basename(relative);
  const dir = openRealDir(boardDir, path.posix.dirname(relative), { ...options, create: true });
  const shown = path.join(dir.shown, name);
  try {
    const existing = existingFile(dir.at(name), shown);
    const mode = existing?.mode ?? options.mode ?? 0o644;
    const temp = tempName(name);
    const fd = openFileIn(dir, temp, 'exclusive', { ...options, mode });
    try {
      // Run by root on a person's board, the file stays theirs (else they could no longer edit it).
      if (existing && process.getuid?.() === 0 && existing.uid !== 0) fchownSync(fd, existing.uid, existing.gid);
      fchmodSync(fd, mode); // the mode it had, whatever the umask
      if (typeof text === 'function') text(fd);
      else writeWhole(fd, typeof text === 'string' ? Buffer.from(text, 'utf8') : text, shown);
      fsyncSync(fd);
      // By path, the folders could have been swapped since the checks: look once more, just before.
      if (!dir.stillThere()) throw movedWhileOpening(shown, 'another place');
      if (options.stillSame?.() === false) {
        rmSync(dir.at(temp), { force: true });
        return false;
      }
      renameSync(dir.at(temp), dir.at(name));
    } catch (error) {
      rmSync(dir.at(temp), { force: true });
      throw unwritableFrom(shown, 'replace', error);
    } finally {
      closeSync(fd);
    }
    fsyncFolder(dir.fd);
    return true;
  } finally {
    dir.close();
  }
}

// The mode of the file being replaced, undefined when there is none; a symlink or a
// non-file in its place is refused before anything is written.
function existingFile(entry: string, shown: string): { mode: number; uid: number; gid: number } | undefined {
  try {
    const stats = lstatSync(entry);
    if (stats.isSymbolicLink()) throw plantedSymlink(shown);
    if (!stats.isFile()) throw notARegularFile(shown);
    return { mode: stats.mode & 0o7777, uid: stats.uid, gid: stats.gid };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw unwritableFrom(shown, 'read the mode of', error);
  }
}

// Some file systems refuse to fsync a folder (EINVAL); the rename is then as durable as they make it.
function fsyncFolder(fd: number): void {
  try {
    fsyncSync(fd);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EINVAL') throw error;
  }
}
