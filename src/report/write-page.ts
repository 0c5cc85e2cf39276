import { closeSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';

// Pieces are gathered into writes of about this size: one write per table row would be a
// system call per attempt.
const WRITE_BYTES = 1 << 20;

/**
 * Write a page from its pieces without ever holding it whole, into a temporary file beside
 * `out` that is renamed over it at the end: a failure half-way leaves the last good page.
 */
export function writePage(out: string, pieces: Iterable<string>): void {
  const temp = `${out}.${process.pid}.tmp`;
  const fd = openSync(temp, 'w');
  try {
    let pending: string[] = [];
    let size = 0;
    for (const piece of pieces) {
      pending.push(piece);
      size += piece.length;
      if (size < WRITE_BYTES) continue;
      writeAll(fd, pending.join(''));
      pending = [];
      size = 0;
    }
    writeAll(fd, pending.join(''));
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  } finally {
    closeSync(fd);
  }
  try {
    renameSync(temp, out);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}

// writeSync may write less than asked; the rest is written until none is left.
function writeAll(fd: number, text: string): void {
  const bytes = Buffer.from(text);
  for (let done = 0; done < bytes.length; ) done += writeSync(fd, bytes, done);
}
