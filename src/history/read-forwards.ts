import { readSync } from 'node:fs';
import { decodeLine, LF, LINE_READ_DEFAULTS, shortRead, type Line, type LineReadOptions } from './line.js';

/**
 * The lines of an open file from byte `from` to `size`, oldest first, read in chunks: memory
 * holds one chunk and one line, however large the file. Lines are split on the LF byte before
 * they are decoded (a multi-byte character cut by a chunk edge is decoded whole); a CR before
 * the LF is dropped; empty lines and lines over `maxLineBytes` are not yielded. The last line
 * is yielded even without its LF: whether it is whole is for the caller's parser to say.
 */
export function* forwardLines(fd: number, size: number, from = 0, options: LineReadOptions = {}): Generator<Line> {
  const chunkBytes = options.chunkBytes ?? LINE_READ_DEFAULTS.chunkBytes;
  const maxLineBytes = options.maxLineBytes ?? LINE_READ_DEFAULTS.maxLineBytes;
  const buffer = Buffer.allocUnsafe(chunkBytes);
  // The start of a line whose end lies in a chunk not read yet, and where it starts.
  let carry: Buffer = Buffer.alloc(0);
  let carryStart = from;
  // Inside a line already known to be too long: drop bytes until its end.
  let skipping = false;
  const line = (bytes: Buffer, start: number) => decodeLine(bytes, start, maxLineBytes);
  for (let pos = from; pos < size; ) {
    const length = Math.min(chunkBytes, size - pos);
    const got = readSync(fd, buffer, 0, length, pos);
    if (got !== length) throw shortRead(pos);
    const chunk = buffer.subarray(0, length);
    let begin = 0;
    let nl = chunk.indexOf(LF);
    if (nl >= 0 && (carry.length > 0 || skipping)) {
      const first = skipping ? undefined : line(Buffer.concat([carry, chunk.subarray(0, nl)]), carryStart);
      if (first) yield first;
      carry = Buffer.alloc(0);
      skipping = false;
      begin = nl + 1;
      nl = chunk.indexOf(LF, begin);
    }
    while (nl >= 0) {
      const next = line(chunk.subarray(begin, nl), pos + begin);
      if (next) yield next;
      begin = nl + 1;
      nl = chunk.indexOf(LF, begin);
    }
    if (!skipping) {
      if (carry.length === 0) carryStart = pos + begin;
      carry = carry.length > 0 ? Buffer.concat([carry, chunk.subarray(begin)]) : Buffer.from(chunk.subarray(begin));
      if (carry.length > maxLineBytes) {
        carry = Buffer.alloc(0);
        skipping = true;
      }
    }
    pos += length;
  }
  const last = skipping ? undefined : line(carry, carryStart);
  if (last) yield last;
}
