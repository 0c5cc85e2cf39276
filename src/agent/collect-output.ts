import type { Readable } from 'node:stream';
import type { Stream } from '../agents/adapter.js';
import type { AttemptOutput } from '../log/output-store.js';
import { LineSplitter } from './output-lines.js';
import { Tail } from './bounded-tail.js';

// Enough to hold any sensible reply (and a CLI's result envelope) after megabytes of chatter.
const STDOUT_TAIL_BYTES = 4 * 1024 * 1024;
const STDERR_TAIL_BYTES = 16 * 1024;

/** What an agent printed: the bounded ends of stdout and stderr, and when it last printed. */
export interface Collected {
  stdout: Tail;
  stderr: Tail;
  /** performance.now() of the last chunk (or of the start). */
  lastOutputAt: () => number;
  /** Resolves once both pipes are closed. */
  closed: Promise<void>;
  /** Stop reading pipes a leftover process holds open. */
  destroy: () => void;
}

/** Who watches an agent's lines while it runs. */
export interface LineWatch {
  /** The last complete line of each chunk, per stream: what a status line shows. */
  latest?: (line: string, stream: Stream) => void;
  /** Every complete line of a stream, as it arrives: a CLI may show a failure long before it exits. */
  lines?: Partial<Record<Stream, (line: string) => void>>;
}

/**
 * Read an agent's stdout and stderr to the end: every byte to its attempt file, the end of
 * each kept in memory, complete lines to the watchers. The pipes are never paused for the
 * files, so an agent never blocks on a disk that is slow or full.
 */
export function collectOutput(
  streams: { stdout: Readable | null; stderr: Readable | null },
  output: AttemptOutput,
  watch: LineWatch = {},
): Collected {
  const stdout = new Tail(STDOUT_TAIL_BYTES);
  const stderr = new Tail(STDERR_TAIL_BYTES);
  let last = performance.now();
  const read = (stream: Readable | null, tail: Tail, file: AttemptOutput['out'], name: Stream) =>
    new Promise<void>((resolve) => {
      if (!stream) return resolve();
      // Only a stream someone watches is split into lines: an agent may print gigabytes.
      const each = watch.lines?.[name];
      const splitter = watch.latest || each ? new LineSplitter() : undefined;
      stream.on('data', (chunk: Buffer) => {
        tail.push(chunk);
        file.write(chunk);
        last = performance.now();
        let latest: string | undefined;
        if (each) {
          const lines = splitter?.push(chunk) ?? [];
          for (const line of lines) each(line);
          latest = lines.findLast((line) => line.trim() !== '');
        } else if (watch.latest) {
          latest = splitter?.latest(chunk);
        }
        if (latest !== undefined) watch.latest?.(latest, name);
      });
      stream.on('error', () => resolve()); // a failed read ends the output
      stream.on('close', () => resolve());
    });
  return {
    stdout,
    stderr,
    lastOutputAt: () => last,
    closed: Promise.all([
      read(streams.stdout, stdout, output.out, 'stdout'),
      read(streams.stderr, stderr, output.err, 'stderr'),
    ]).then(() => undefined),
    destroy: () => {
      streams.stdout?.destroy();
      streams.stderr?.destroy();
    },
  };
}
