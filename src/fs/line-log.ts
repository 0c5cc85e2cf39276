import { closeSync, fstatSync, ftruncateSync, readSync, writeSync } from 'node:fs';
import path from 'node:path';
import { InternalError, UnwritableError } from '../errors.js';
import { openAppend, type OpenOptions } from './safe-open.js';
import { unwritableFrom } from './refuse.js';

/**
 * A log of one line per record (events.jsonl) that never keeps a torn line. Each line goes
 * in one write; a short or failed write is cut back off (ftruncate to the size before it),
 * so a full disk leaves whole lines only. A crash mid-write can still tear the last line:
 * opening the file again ends such a line with `\n` first, so readers skip it as one bad
 * line instead of merging it with the next record.
 */
export class LineLog {
  private constructor(
    private fd: number | undefined,
    /** The file as shown in messages. */
    readonly shown: string,
  ) {}

  /** Open (creating it and its folders if missing) the line log `relative` of the board, safely (see openAppend). */
  static open(boardDir: string, relative: string, options: OpenOptions = {}): LineLog {
    const fd = openAppend(boardDir, relative, { ...options, readable: true });
    const log = new LineLog(fd, path.join(boardDir, relative));
    try {
      if (!endsWithNewline(fd)) log.write(Buffer.from('\n'));
    } catch (error) {
      log.close();
      throw error;
    }
    return log;
  }

  /** Append `line` (without its `\n`, and holding none) whole, or not at all. */
  append(line: string): void {
    if (line.includes('\n'))
      throw new InternalError(`A line for ${this.shown} holds a line break. This is a bug: please report it.`);
    this.write(Buffer.from(`${line}\n`, 'utf8'));
  }

  /** Close the file; appending afterwards is a bug. */
  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  private write(bytes: Buffer): void {
    const fd = this.fd;
    if (fd === undefined)
      throw new InternalError(`${this.shown} was written after it was closed. This is a bug: please report it.`);
    let before: number;
    try {
      before = fstatSync(fd).size;
    } catch (error) {
      throw unwritableFrom(this.shown, 'append to', error);
    }
    let written = 0;
    try {
      written = writeSync(fd, bytes);
    } catch (error) {
      cutBack(fd, before);
      throw unwritableFrom(this.shown, 'append to', error);
    }
    if (written < bytes.length) {
      cutBack(fd, before);
      // A short write on a regular file: the disk or the quota ran out part way.
      throw new UnwritableError(
        `Cannot append to ${this.shown}: only ${written} of ${bytes.length} bytes were written ` +
          `(the disk is full?). Free some space and run again.`,
      );
    }
  }
}

// Best effort: if even the truncate fails, the next open ends the torn line instead.
function cutBack(fd: number, size: number): void {
  try {
    ftruncateSync(fd, size);
  } catch {
    // left for the next open to end with a newline
  }
}

function endsWithNewline(fd: number): boolean {
  const size = fstatSync(fd).size;
  if (size === 0) return true;
  const last = Buffer.alloc(1);
  readSync(fd, last, 0, 1, size - 1);
  return last[0] === 0x0a;
}
