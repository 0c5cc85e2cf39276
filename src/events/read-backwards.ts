import { readSync } from 'node:fs';
import { decodeLine, LF, LINE_READ_DEFAULTS, shortRead, type Line, type LineReadOptions } from './line.js';

/**
 * The lines of an open file, newest (last) first, read in chunks from the end: only as much
 * of the file is read as the caller iterates, and never more than `limitBytes` from the end.
 * Lines are split on the LF byte before they are decoded, so a multi-byte UTF-8 character cut
 * by a chunk edge is decoded whole. Empty lines are not yielded. After iterating, `read` and
 * `reachedStart` say how far it got: a caller that found nothing can tell "nothing in the
 * file" from "nothing in the part read".
 */
export class BackwardLines implements Iterable<Line> {
  /** Bytes read so far, counted from the end of the file. */
  read = 0;
  /** Whether the reading got to the start of the file (every line was seen). */
  reachedStart = false;
  private readonly chunkBytes: number;
  private readonly maxLineBytes: number;
  private readonly floor: number;

  constructor(
    private readonly fd: number,
    private readonly size: number,
    options: LineReadOptions & { limitBytes?: number } = {},
  ) {
    this.chunkBytes = options.chunkBytes ?? LINE_READ_DEFAULTS.chunkBytes;
    this.maxLineBytes = options.maxLineBytes ?? LINE_READ_DEFAULTS.maxLineBytes;
    this.floor = Math.max(0, size - Math.floor(options.limitBytes ?? size));
  }

  *[Symbol.iterator](): Generator<Line> {
    const buffer = Buffer.allocUnsafe(this.chunkBytes);
    // The newest bytes of a line whose start lies in a chunk not read yet.
    let carry: Buffer = Buffer.alloc(0);
    // Inside a line already known to be too long: drop bytes until its start.
    let skipping = false;
    let pos = this.size;
    while (pos > this.floor) {
      const length = Math.min(this.chunkBytes, pos - this.floor);
      pos -= length;
      const got = readSync(this.fd, buffer, 0, length, pos);
      if (got !== length) throw shortRead(pos);
      this.read = this.size - pos;
      const chunk = buffer.subarray(0, length);
      let end = length;
      let nl = lastLf(chunk, end);
      if (nl >= 0 && (carry.length > 0 || skipping)) {
        // The line that carried over from newer chunks starts right after this newline.
        const joined = skipping
          ? undefined
          : decodeLine(Buffer.concat([chunk.subarray(nl + 1), carry]), pos + nl + 1, this.maxLineBytes);
        if (joined) yield joined;
        carry = Buffer.alloc(0);
        skipping = false;
        end = nl;
        nl = lastLf(chunk, end);
      }
      while (nl >= 0) {
        const line = decodeLine(chunk.subarray(nl + 1, end), pos + nl + 1, this.maxLineBytes);
        if (line) yield line;
        end = nl;
        nl = lastLf(chunk, end);
      }
      if (skipping) continue;
      // What is left is the newest part of a line that starts further back.
      carry = carry.length > 0 ? Buffer.concat([chunk.subarray(0, end), carry]) : Buffer.from(chunk.subarray(0, end));
      if (carry.length > this.maxLineBytes) {
        carry = Buffer.alloc(0);
        skipping = true;
      }
    }
    // At the start of the file the carry is the first line; at the limit, a line cut in two.
    if (this.floor === 0) {
      this.reachedStart = true;
      const first = skipping ? undefined : decodeLine(carry, 0, this.maxLineBytes);
      if (first) yield first;
    }
  }
}

// The last LF before `end`; Buffer.lastIndexOf would read a negative offset from the end.
function lastLf(bytes: Buffer, end: number): number {
  return end <= 0 ? -1 : bytes.lastIndexOf(LF, end - 1);
}
