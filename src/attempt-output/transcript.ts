import { StringDecoder } from 'node:string_decoder';
import type { AgentCli, Shown } from '../agents/adapter.js';
import { AGENTS } from '../agents/index.js';
import type { AttemptRecord } from '../events/records.js';
import { isObject, parse } from '../reply/json.js';
import { AgentText, type Output, type TextSink } from './copy-stream.js';

// A longer line is not parsed (a tool result or a whole file): it is dropped when its type is one
// the CLI never shows, else passed on as written, without holding more than this much of it.
const PARSE_MAX = 256 * 1024;

/**
 * The known CLI whose transcript `logs` shows for an attempt's stdout;
 * undefined: the bytes as written (`--raw`, any other command, an older log).
 */
export function transcriptCli(a: Pick<AttemptRecord, 'cli'>, raw: boolean): AgentCli | undefined {
  return raw ? undefined : AGENTS.find((agent) => agent.name === a.cli && agent.transcript !== undefined);
}

/** Where an attempt's stdout goes: through its CLI's transcript when there is one, else as the agent wrote it. */
export function stdoutSink(out: Output, cli: AgentCli | undefined): TextSink {
  const text = new AgentText(out);
  return cli ? new Transcript(cli, text) : text;
}

/**
 * A known CLI's stdout as `logs` shows it: each line that is one of its JSON events replaced by
 * what its transcript shows, any other line passed on as it is. Line by line, so an output of any
 * size goes through holding one line (of at most PARSE_MAX) at a time.
 */
export class Transcript implements TextSink {
  private readonly decoder = new StringDecoder('utf8');
  private readonly silent: RegExp;
  private pending = '';
  /** A line too long to parse, passed on or dropped until its end. */
  private long: 'pass' | 'drop' | undefined;
  /** Whether a piece (Gemini's delta) was written last without ending its line. */
  private open = false;

  constructor(
    private readonly cli: AgentCli,
    private readonly text: AgentText,
  ) {
    this.silent = new RegExp(
      `^\\s*\\{\\s*"type"\\s*:\\s*"(?:${cli.silent.map((type) => type.replaceAll('.', '\\.')).join('|')})"`,
    );
  }

  /** Pass a chunk of the agent's stdout on. */
  async push(chunk: Buffer): Promise<void> {
    const data = this.decoder.write(chunk);
    for (let at = 0; at < data.length;) {
      const newline = data.indexOf('\n', at);
      const end = newline < 0 ? data.length : newline + 1;
      const part = data.slice(at, end);
      at = end;
      if (this.long) {
        if (this.long === 'pass') await this.text.push(Buffer.from(part));
        if (newline >= 0) this.long = undefined;
        continue;
      }
      this.pending += part;
      if (newline >= 0) {
        await this.line(this.pending);
        this.pending = '';
      } else if (this.pending.length > PARSE_MAX) {
        this.long = this.silent.test(this.pending) ? 'drop' : 'pass';
        if (this.long === 'pass') await this.raw(this.pending);
        this.pending = '';
      }
    }
  }

  /** The end of the stream: its last unended line, then (`ownLine`) a line break if the output did not end with one. */
  async end(ownLine: boolean): Promise<void> {
    const rest = this.pending + this.decoder.end();
    if (!this.long && rest) await this.line(rest);
    this.pending = '';
    this.long = undefined;
    this.open = false;
    await this.text.end(ownLine);
  }

  private async line(line: string): Promise<void> {
    const trimmed = line.trim();
    if (trimmed.startsWith('{')) {
      if (this.silent.test(trimmed)) return;
      const event = parse(trimmed);
      if (isObject(event)) {
        if (typeof event.type === 'string' && this.cli.silent.includes(event.type)) return;
        const shown = this.cli.transcript?.(event);
        if (shown !== null && shown !== undefined) return this.show(shown);
        if (shown === undefined) return;
      }
    }
    await this.raw(line);
  }

  private async show(shown: Shown): Promise<void> {
    if (typeof shown === 'string') {
      if (shown) await this.raw(`${shown}\n`);
      return;
    }
    if (!shown.piece) return;
    await this.text.push(Buffer.from(shown.piece));
    this.open = !shown.piece.endsWith('\n');
  }

  // Text that starts a line of its own: after a piece, on the next line.
  private async raw(text: string): Promise<void> {
    if (this.open) await this.text.push(Buffer.from('\n'));
    this.open = false;
    await this.text.push(Buffer.from(text));
  }
}
