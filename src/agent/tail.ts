/** Keeps only the last `limit` bytes written to it, so memory stays bounded however much an agent prints. */
export class Tail {
  private chunks: Buffer[] = [];
  private size = 0;
  /** Every byte ever written, kept or not. */
  total = 0;

  constructor(private readonly limit: number) {}

  /** Append a chunk, dropping the oldest bytes past the limit. */
  push(chunk: Buffer): void {
    this.total += chunk.length;
    if (chunk.length >= this.limit) {
      this.chunks = [Buffer.from(chunk.subarray(chunk.length - this.limit))];
      this.size = this.limit;
      return;
    }
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.size - (this.chunks[0]?.length ?? 0) >= this.limit) {
      this.size -= (this.chunks.shift() as Buffer).length;
    }
  }

  /** Whether bytes were dropped (the text is the end of the output, not all of it). */
  get truncated(): boolean {
    return this.total > this.size;
  }

  /** The kept bytes as UTF-8 text (invalid sequences become U+FFFD). */
  text(): string {
    const all = Buffer.concat(this.chunks);
    const start = all.length > this.limit ? all.length - this.limit : 0;
    return all.subarray(start).toString('utf8');
  }
}

/** The last non-blank line of a chunk, trimmed to `max` characters; undefined if there is none. */
export function lastLine(chunk: Buffer, max = 200): string | undefined {
  const text = chunk.subarray(Math.max(0, chunk.length - 4096)).toString('utf8');
  const lines = text.split(/\r?\n|\r/);
  for (let i = lines.length - 1; i >= 0; i--) {
    // eslint-disable-next-line no-control-regex -- strip terminal escapes and control bytes from agent output
    const line = (lines[i] as string).replace(/\x1b\[[0-9;?]*[A-Za-z]|[\x00-\x08\x0b-\x1f\x7f]/g, '').trim();
    if (line) return line.length > max ? `${line.slice(0, max - 1)}…` : line;
  }
  return undefined;
}
