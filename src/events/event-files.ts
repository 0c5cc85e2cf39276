import { closeSync } from 'node:fs';
import path from 'node:path';
import { InputError, SupervisorError } from '../errors.js';
import { NotReadableError, openRegular } from '../fs/safe-read.js';
import { BackwardLines } from './read-backwards.js';
import type { Line } from './line.js';
import { EVENTS, rotatedFile } from '../event-types.js';

/**
 * One file of the store, open for reading; `size` is taken at opening,
 * so a run appending meanwhile changes nothing read.
 */
export interface StoreFile {
  fd: number;
  size: number;
  /** Whether it is the rotated file (events.1.jsonl), which holds the older events. */
  rotated: boolean;
}

/**
 * Open a board's events file and its rotated one (`events` board-relative: EVENTS, or `try`'s),
 * newest first, hand those there are to `read` and close them again. Neither there is no history
 * (undefined). Anything else that keeps one from being read — no permission, not a file, an I/O
 * error while `read` reads — is an InputError naming the file and the fix, never an empty
 * history: a person must not be told "not run yet" about a board that ran.
 */
export function withStore<T>(boardDir: string, read: (files: StoreFile[]) => T, events = EVENTS): T | undefined {
  const names = [events, rotatedFile(events)].map((name) => path.join(boardDir, name));
  const files: (StoreFile & { name: string })[] = [];
  try {
    for (const [i, name] of names.entries()) {
      const file = open(name);
      if (file) files.push({ ...file, name, rotated: i === 1 });
    }
    if (files.length === 0) return undefined;
    return read(files);
  } catch (error) {
    // System errors (EACCES, EIO, … and our short read) are about the file; anything else,
    // Node's own ERR_* included, is ours to report as a bug.
    const code = (error as NodeJS.ErrnoException).code;
    const aboutTheFile = typeof code === 'string' && /^E[A-Z]+$/.test(code);
    throw error instanceof SupervisorError || !aboutTheFile
      ? error
      : unreadable(files[0]?.name ?? (names[0] as string), error);
  } finally {
    for (const file of files) closeSync(file.fd);
  }
}

// Without blocking and never through a symlink: a FIFO or a link planted in its place is an unreadable history.
function open(name: string): Omit<StoreFile, 'rotated'> | undefined {
  try {
    const opened = openRegular(name, name, { follow: false });
    return opened && { fd: opened.fd, size: opened.stats.size };
  } catch (error) {
    if (!(error instanceof NotReadableError)) throw error;
    throw unreadable(name, Object.assign(new Error(error.why), { code: error.code }));
  }
}

/**
 * The lines of the store's files newest first: events.jsonl from its end, then the rotated
 * file from its end, at most `limitBytes` in all. After iterating, `read` and `reachedStart`
 * say how far it got, as BackwardLines does for one file.
 */
export class NewestFirst implements Iterable<Line> {
  private readonly done: BackwardLines[] = [];
  private current: BackwardLines | undefined;

  constructor(
    private readonly files: readonly StoreFile[],
    private readonly options: { limitBytes?: number; chunkBytes?: number | undefined } = {},
  ) {}

  /** The bytes read so far, counted from the end, across the files. */
  get read(): number {
    return [...this.done, ...(this.current ? [this.current] : [])].reduce((n, lines) => n + lines.read, 0);
  }

  /** Whether every line of every file was seen. */
  get reachedStart(): boolean {
    return this.done.length === this.files.length && this.done.every((lines) => lines.reachedStart);
  }

  /** The bytes of all the files. */
  get bytes(): number {
    return this.files.reduce((n, file) => n + file.size, 0);
  }

  *[Symbol.iterator](): Generator<Line> {
    let left = this.options.limitBytes ?? Infinity;
    for (const file of this.files) {
      this.current = new BackwardLines(file.fd, file.size, {
        limitBytes: Math.min(left, file.size),
        chunkBytes: this.options.chunkBytes,
      });
      yield* this.current;
      this.done.push(this.current);
      left -= this.current.read;
      const whole = this.current.reachedStart;
      this.current = undefined;
      if (!whole) return;
    }
  }
}

/** The one-line error for a history that cannot be read: what, why, and what to do. */
export function unreadable(file: string, error: unknown): InputError {
  const shown = path.relative(process.cwd(), file) || file;
  const code = (error as NodeJS.ErrnoException).code;
  const fix =
    code === 'EACCES' || code === 'EPERM'
      ? `Give yourself read access (chmod u+r ${shown}) and try again.`
      : `Move it aside (mv ${shown} ${shown}.old) to start a new history, or restore it; ` +
        `the board itself is not affected.`;
  return new InputError(`${shown}: the event history cannot be read (${describe(error)}). ${fix}`);
}

// Node's messages repeat the code and the path ("EACCES: permission denied, open '…'"): keep the words.
function describe(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/^[A-Z]+: /, '').replace(/, \w+( '.*')?$/, '');
}
