import { closeSync, constants, openSync } from 'node:fs';
import { replaceFileAtomic, writeWhole } from '../fs/replace.js';

// Pieces are gathered into writes of about this size: one write per table row would be a
// system call per attempt.
const WRITE_BYTES = 1 << 20;

/**
 * The page in the board's state folder (`relative`, board-relative), through the one safe-write
 * path (fs/replace.ts): a temp file nobody can plant in advance, renamed over the page at the
 * end, so a failure half-way leaves the last good page and nothing planted redirects the write.
 */
export function writePageInBoard(boardDir: string, relative: string, pieces: Iterable<string>, shown: string): void {
  replaceFileAtomic(boardDir, relative, (fd) => writePieces(fd, pieces, shown));
}

/**
 * The page at a path a person named (`--out`): written through it, never replaced — a terminal,
 * a pipe (`/dev/stdout`) or the target of their own symlink gets the bytes, and stays what it is.
 */
export function writePageThrough(out: string, pieces: Iterable<string>): void {
  const fd = openSync(out, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC, 0o666);
  try {
    writePieces(fd, pieces, out);
  } finally {
    closeSync(fd);
  }
}

/** Write a page from its pieces to `fd` without ever holding it whole. */
function writePieces(fd: number, pieces: Iterable<string>, shown: string): void {
  let pending: string[] = [];
  let size = 0;
  for (const piece of pieces) {
    pending.push(piece);
    size += piece.length;
    if (size < WRITE_BYTES) continue;
    writeWhole(fd, Buffer.from(pending.join('')), shown);
    pending = [];
    size = 0;
  }
  writeWhole(fd, Buffer.from(pending.join('')), shown);
}
