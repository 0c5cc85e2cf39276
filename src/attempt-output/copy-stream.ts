import { StringDecoder } from 'node:string_decoder';
import { cleanBlock } from '../util/clean-text.js';
import { maskText } from '../util/secrets.js';

/**
 * One of our output streams, written with back-pressure; a reader
 * that went away (`logs | head`) ends the writing quietly.
 */
export class Output {
  private gone = false;

  constructor(
    private readonly stream: NodeJS.WritableStream,
    /** Whether it is a terminal, where agent text is cleaned of control sequences. */
    readonly terminal: boolean,
    /** Secret values (board/secret-values.ts) masked in agent text, which then goes whole lines at a time. */
    readonly secrets: readonly string[] = [],
  ) {
    stream.on('error', () => {
      this.gone = true;
    });
  }

  /** Whether the reader is still there. */
  get open(): boolean {
    return !this.gone;
  }

  /** Write text or bytes; resolves once the stream can take more. */
  async write(data: string | Buffer): Promise<void> {
    if (this.gone || data.length === 0) return;
    if (this.stream.write(data)) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        this.stream.off('drain', done);
        this.stream.off('error', done);
        resolve();
      };
      this.stream.on('drain', done);
      this.stream.on('error', done);
    });
  }
}

// The longest piece of a line held back to be masked whole.
const LINE_MAX = 64 * 1024;
// Kept back from a piece: longer than any secret, and than an escape sequence worth keeping whole.
const KEEP = 4096;

// eslint-disable-next-line no-control-regex -- the introducers of escape sequences
const LAST_ESCAPE = /[\x1b\x90\x98\x9b\x9d-\x9f][^\x1b\x90\x98\x9b\x9d-\x9f]*$/;

/**
 * Where to end a piece of a long line (a string index): `KEEP` characters before its end, moved
 * back before a known value that would be cut in two and before an escape sequence's start.
 */
function pieceEnd(text: string, secrets: readonly string[]): number {
  const keep = Math.max(KEEP, ...secrets.map((secret) => secret.length));
  let cut = text.length - keep;
  for (const secret of secrets) {
    const at = text.lastIndexOf(secret, cut - 1);
    if (at >= 0 && at + secret.length > cut) cut = at;
  }
  const escape = text.slice(Math.max(0, cut - 64), cut).search(LAST_ESCAPE);
  return escape < 0 ? cut : Math.max(0, cut - 64) + escape;
}

/** Where an agent's output stream is passed, chunk by chunk, to one of our outputs. */
export interface TextSink {
  push(chunk: Buffer): Promise<void>;
  end(ownLine: boolean): Promise<void>;
}

/**
 * An agent's output stream as it goes to one of our outputs: the bytes as they are for a pipe
 * or a file; for a terminal, whole lines decoded and cleaned (util/clean-text.ts), so an escape
 * sequence split between two reads is still removed; with secrets to mask, whole lines masked.
 */
export class AgentText implements TextSink {
  private readonly decoder = new StringDecoder('utf8');
  private pending = '';
  /** The last character passed on, to end the stream on a line of its own. */
  private last = '\n';

  constructor(private readonly out: Output) {}

  private get byLine(): boolean {
    return this.out.terminal || this.out.secrets.length > 0;
  }

  /** Pass a chunk of the agent's bytes on. */
  async push(chunk: Buffer): Promise<void> {
    if (chunk.length === 0) return;
    if (!this.byLine) {
      this.last = String.fromCharCode(chunk[chunk.length - 1] as number);
      return this.out.write(chunk);
    }
    const text = this.pending + this.decoder.write(chunk);
    let cut = text.lastIndexOf('\n') + 1;
    // A line that never ends goes on in pieces, so memory and each masking stay bounded.
    if (text.length - cut > LINE_MAX) cut = pieceEnd(text, this.out.secrets);
    this.pending = text.slice(cut);
    await this.emit(text.slice(0, cut));
  }

  /**
   * The end of the stream: what is left, then (`ownLine`: before a heading)
   * a line break if the agent did not end its last line.
   */
  async end(ownLine: boolean): Promise<void> {
    if (this.byLine) await this.emit(this.pending + this.decoder.end());
    this.pending = '';
    if (ownLine && this.last !== '\n') await this.out.write('\n');
    this.last = '\n';
  }

  private async emit(text: string): Promise<void> {
    if (!text) return;
    const clean = maskText(this.out.terminal ? cleanBlock(text) : text, this.out.secrets);
    if (clean) this.last = clean.slice(-1);
    await this.out.write(clean);
  }
}
