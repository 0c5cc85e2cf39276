import { closeSync, fstatSync, openSync, readSync, statSync } from 'node:fs';
import path from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import type { SupervisorEvent } from '../log/events.js';
import { keyOf, parse, type FoundAttempt } from './find.js';
import { AgentText, type Output } from './output.js';
import type { OutputPlace } from './places.js';
import { attemptFiles, copyNew, openOutput } from './print.js';

/** What following needs from outside: where to write each stream, whether the run still goes, and the clock. */
export interface FollowIO {
  /** Where the agent's stdout goes; left out (with `--stderr`), it is not read. */
  stdout?: Output;
  stderr?: Output;
  /** Whether the supervisor running the attempt is still alive. */
  alive: () => boolean;
  sleep: (ms: number) => Promise<void>;
  pollMs?: number;
}

/**
 * Tail a running attempt: its stdout to our stdout and its stderr to our stderr as the agent
 * writes them, until the event log records the attempt's end (returned), or its supervisor is
 * gone without recording one (undefined). `from` is the size of the event log when the attempt
 * was found unfinished: its end can only come after. Each file is held open once found, so the
 * rename of a failed attempt's files (`.failed.out`) loses nothing.
 */
export async function followAttempt(boardDir: string, a: FoundAttempt, place: OutputPlace, from: number, io: FollowIO): Promise<SupervisorEvent | undefined> {
  const files = attemptFiles(a, place);
  const streams = (['stdout', 'stderr'] as const).flatMap((which) => {
    const out = io[which];
    return out ? [{ file: files[which] as string, fd: undefined as number | undefined, out, text: new AgentText(out) }] : [];
  });
  const events = new EventTail(path.join(boardDir, place.events), from);
  const key = [a.run, a.step, a.role, a.task, a.attempt].join('\0');
  try {
    for (;;) {
      // Alive first: once the supervisor is gone, everything it wrote is in the log.
      const alive = io.alive();
      const ended = events.find((event) => event.type === 'attempt_finished' && keyOf(event) === key);
      for (const stream of streams) {
        stream.fd ??= openOutput(path.join(boardDir, stream.file));
        // A file the agent began after the last look was renamed when the attempt failed.
        if (stream.fd === undefined && ended) stream.fd = openOutput(path.join(boardDir, stream.file.replace(/\.(out|err)$/, '.failed.$1')));
        if (stream.fd !== undefined) await copyNew(stream.fd, stream.text);
      }
      if (ended || !alive || streams.some((stream) => !stream.out.open)) {
        for (const stream of streams) await stream.text.end(false);
        return ended;
      }
      await io.sleep(io.pollMs ?? 250);
    }
  } finally {
    events.close();
    for (const stream of streams) if (stream.fd !== undefined) closeSync(stream.fd);
  }
}

// The events appended to the log from an offset on, read as they come, whole lines only. When
// the log is rotated (events.jsonl moved to events.1.jsonl), the rest of the old file is read,
// then the new one from its start.
class EventTail {
  private fd: number | undefined;
  private decoder = new StringDecoder('utf8');
  private carry = '';

  constructor(
    private readonly file: string,
    private offset: number,
  ) {}

  find(match: (event: SupervisorEvent) => boolean): SupervisorEvent | undefined {
    let found: SupervisorEvent | undefined;
    for (let round = 0; round < 2 && !found; round++) {
      this.fd ??= openIfThere(this.file);
      if (this.fd === undefined) return undefined;
      found = this.read(match);
      if (found || sameFile(this.fd, this.file)) break;
      this.close();
      this.offset = 0;
    }
    return found;
  }

  private read(match: (event: SupervisorEvent) => boolean): SupervisorEvent | undefined {
    const fd = this.fd as number;
    const chunk = Buffer.allocUnsafe(64 * 1024);
    let found: SupervisorEvent | undefined;
    for (let got = readSync(fd, chunk, 0, chunk.length, this.offset); got > 0; got = readSync(fd, chunk, 0, chunk.length, this.offset)) {
      this.offset += got;
      const lines = (this.carry + this.decoder.write(chunk.subarray(0, got))).split('\n');
      this.carry = lines.pop() ?? '';
      for (const line of lines) {
        const event = parse(line);
        if (event && match(event)) found ??= event;
      }
    }
    return found;
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
    this.decoder = new StringDecoder('utf8');
    this.carry = '';
  }
}

function openIfThere(file: string): number | undefined {
  try {
    return openSync(file, 'r');
  } catch {
    return undefined;
  }
}

function sameFile(fd: number, file: string): boolean {
  try {
    return statSync(file).ino === fstatSync(fd).ino;
  } catch {
    return false;
  }
}
