import { closeSync, fstatSync, readSync, statSync } from 'node:fs';
import { openRegular } from '../fs/safe-read.js';
import { StringDecoder } from 'node:string_decoder';
import { eventTable, type CapabilityEvents } from './capability-events.js';
import { parseEvent, type MoreChecks, type ReadEvent } from './parse.js';

/**
 * The events appended to an events file from an offset on, read forward as they come, whole
 * lines only (`logs --follow`). When the file is rotated (events.jsonl moved to events.1.jsonl),
 * the rest of the old file is read, then the new one from its start.
 */
export class EventTail {
  private fd: number | undefined;
  private decoder = new StringDecoder('utf8');
  private carry = '';
  private readonly checks: MoreChecks;

  constructor(
    private readonly file: string,
    private offset: number,
    /** The capabilities' event types, read as each one says. */
    capabilityEvents: readonly CapabilityEvents[],
  ) {
    this.checks = eventTable(capabilityEvents).checks;
  }

  /** The first event appended since the last look that `match` accepts, if one was. */
  find<E extends ReadEvent>(match: (event: ReadEvent) => event is E): E | undefined {
    let found: E | undefined;
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

  private read<E extends ReadEvent>(match: (event: ReadEvent) => event is E): E | undefined {
    const fd = this.fd as number;
    const chunk = Buffer.allocUnsafe(64 * 1024);
    let found: E | undefined;
    for (
      let got = readSync(fd, chunk, 0, chunk.length, this.offset);
      got > 0;
      got = readSync(fd, chunk, 0, chunk.length, this.offset)
    ) {
      this.offset += got;
      const lines = (this.carry + this.decoder.write(chunk.subarray(0, got))).split('\n');
      this.carry = lines.pop() ?? '';
      for (const line of lines) {
        const event = parseEvent(line, this.checks);
        if (event && match(event)) found ??= event;
      }
    }
    return found;
  }

  /** Let go of the file (a later look opens it again, from the start if it was rotated). */
  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
    this.decoder = new StringDecoder('utf8');
    this.carry = '';
  }
}

// Without blocking and never through a symlink (fs/safe-read.ts): a FIFO in its place is not there.
function openIfThere(file: string): number | undefined {
  try {
    return openRegular(file, file, { follow: false })?.fd;
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
