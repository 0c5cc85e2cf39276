// Output is copied into blocks of this size, so an agent that prints one byte per write
// (a spinner, a dot every second for hours) costs a few dozen Buffers, not millions.
const BLOCK_BYTES = 64 * 1024;

/** Keeps only the last `limit` bytes written to it, so memory stays bounded however much an agent prints. */
export class Tail {
  /** Full blocks, then the block being filled (`used` bytes of it). */
  private blocks: Buffer[] = [];
  /** The last dropped block, reused for the next one: a long output then allocates nothing. */
  private spare: Buffer | undefined;
  private used = 0;
  private size = 0;
  /** Every byte ever written, kept or not. */
  total = 0;

  constructor(private readonly limit: number) {}

  /** Append a chunk, dropping the oldest bytes past the limit. */
  push(chunk: Buffer): void {
    this.total += chunk.length;
    let data = chunk.length > this.limit ? chunk.subarray(chunk.length - this.limit) : chunk;
    while (data.length > 0) {
      let last = this.blocks.at(-1);
      if (!last || this.used === last.length) {
        last = this.spare ?? Buffer.allocUnsafe(Math.min(BLOCK_BYTES, this.limit));
        this.spare = undefined;
        this.blocks.push(last);
        this.used = 0;
      }
      const copied = data.copy(last, this.used);
      this.used += copied;
      this.size += copied;
      data = data.subarray(copied);
    }
    while (this.blocks.length > 1 && this.size - (this.blocks[0] as Buffer).length >= this.limit) {
      this.spare = this.blocks.shift() as Buffer;
      this.size -= this.spare.length;
    }
  }

  /** Whether bytes were dropped (the text is the end of the output, not all of it). */
  get truncated(): boolean {
    return this.total > Math.min(this.size, this.limit);
  }

  /** The kept bytes as UTF-8 text (invalid sequences become U+FFFD). */
  text(): string {
    const last = this.blocks.at(-1);
    if (!last) return '';
    const all = Buffer.concat([...this.blocks.slice(0, -1), last.subarray(0, this.used)]);
    return all.subarray(Math.max(0, all.length - this.limit)).toString('utf8');
  }
}
