import type { Readable } from 'node:stream';
import type { AttemptOutput } from '../log/output-store.js';
import { Tail, lastLine } from './tail.js';

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

/**
 * Read an agent's stdout and stderr to the end: every byte to its attempt file, the end
 * of each kept in memory, the latest line to `onLine`. The pipes are never paused for the
 * files, so an agent never blocks on a disk that is slow or full.
 */
export function collectOutput(streams: { stdout: Readable | null; stderr: Readable | null }, output: AttemptOutput, onLine?: (line: string) => void): Collected {
  const stdout = new Tail(STDOUT_TAIL_BYTES);
  const stderr = new Tail(STDERR_TAIL_BYTES);
  let last = performance.now();
  const read = (stream: Readable | null, tail: Tail, file: AttemptOutput['out']) =>
    new Promise<void>((resolve) => {
      if (!stream) return resolve();
      stream.on('data', (chunk: Buffer) => {
        tail.push(chunk);
        file.write(chunk);
        last = performance.now();
        const line = onLine && lastLine(chunk);
        if (line) onLine?.(line);
      });
      stream.on('error', () => resolve()); // a failed read ends the output
      stream.on('close', () => resolve());
    });
  return {
    stdout,
    stderr,
    lastOutputAt: () => last,
    closed: Promise.all([read(streams.stdout, stdout, output.out), read(streams.stderr, stderr, output.err)]).then(() => undefined),
    destroy: () => {
      streams.stdout?.destroy();
      streams.stderr?.destroy();
    },
  };
}
