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
    const cut = text.lastIndexOf('\n') + 1;
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
