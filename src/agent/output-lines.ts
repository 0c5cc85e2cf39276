// A line longer than this is kept only by its end: what watches lines (a status line, a CLI's
// error event) needs no more, and an agent that never ends a line must not grow memory.
const MAX_LINE = 64 * 1024;
// What the last line of a chunk is looked for in: a status line shows less than this.
const LATEST_BYTES = 4096;
const BREAK = /\r?\n|\r/;

/**
 * Splits a stream's chunks into complete lines (ended by \n, \r\n or a lone \r, as progress
 * bars print), holding the unfinished end until it is finished. Bounded in memory.
 */
export class LineSplitter {
  private partial = '';

  /** Every line a chunk completes. */
  push(chunk: Buffer): string[] {
    const lines = (this.partial + chunk.toString('utf8')).split(BREAK);
    this.partial = (lines.pop() as string).slice(-MAX_LINE);
    return lines;
  }

  /**
   * The last non-blank line a chunk completes, if any: only the chunk's end is decoded, so an
   * agent printing a gigabyte costs a few kilobytes of work per chunk, not a split of all of it.
   */
  latest(chunk: Buffer): string | undefined {
    const end = Math.max(chunk.lastIndexOf(0x0a), chunk.lastIndexOf(0x0d));
    if (end < 0) {
      this.partial = (this.partial + chunk.subarray(-LATEST_BYTES).toString('utf8')).slice(-MAX_LINE);
      return undefined;
    }
    const head = end >= LATEST_BYTES ? '' : this.partial;
    const lines = (head + chunk.subarray(Math.max(0, end - LATEST_BYTES), end).toString('utf8')).split(BREAK);
    this.partial = chunk
      .subarray(end + 1)
      .toString('utf8')
      .slice(-MAX_LINE);
    return lines.findLast((line) => line.trim() !== '');
  }
}
