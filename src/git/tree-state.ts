import { createHash } from 'node:crypto';
import { closeSync, constants, lstatSync, openSync, readlinkSync, readSync } from 'node:fs';

const CHUNK = 1024 * 1024;

/**
 * What a work-tree path holds now, as a string that changes when git would see a change: a
 * file's content hash and executable bit, a link's target, `gone`; a folder (a nested
 * repository) is only `dir`. `file` is a byte string (latin1) relative to `top`. Never follows
 * a link, never blocks on a FIFO an agent planted: only regular files are opened, non-blocking.
 */
export function pathState(top: string, file: string): string {
  const full = Buffer.concat([Buffer.from(`${top}/`), Buffer.from(file, 'latin1')]);
  let stats;
  try {
    stats = lstatSync(full);
  } catch {
    return 'gone';
  }
  if (stats.isSymbolicLink()) return `link:${readlinkSync(full, { encoding: 'buffer' }).toString('hex')}`;
  if (stats.isDirectory()) return 'dir';
  if (!stats.isFile()) return `other:${stats.mode}:${stats.ino}:${stats.mtimeMs}`;
  return `file:${stats.mode & 0o111 ? 'x' : '-'}:${contentHash(full) ?? `${stats.ino}:${stats.size}:${stats.mtimeMs}`}`;
}

// SHA-256 of a regular file's bytes, or undefined when it cannot be read (then its stat stands in).
function contentHash(full: Buffer): string | undefined {
  let fd;
  try {
    fd = openSync(full, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const hash = createHash('sha256');
    const buffer = Buffer.alloc(CHUNK);
    for (let read = readSync(fd, buffer, 0, CHUNK, null); read > 0; read = readSync(fd, buffer, 0, CHUNK, null))
      hash.update(buffer.subarray(0, read));
    return hash.digest('hex');
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}
