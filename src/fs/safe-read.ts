import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';
import { InputError } from '../errors.js';

/**
 * Reading a file an agent can touch (a task, a role file, a schema, the event log, an attempt's
 * output): opened O_NONBLOCK, so a FIFO planted in its place returns at once instead of
 * blocking the supervisor in open() (where Ctrl-C cannot reach it), then checked on the open
 * descriptor: a regular file, or refused. `follow: false` adds O_NOFOLLOW for files that are
 * never symlinks of the person's making (the state folder's own files).
 */

/** How to open: through a symlink at the last step (a board path already checked to stay inside), or never. */
export interface ReadOptions {
  follow?: boolean;
}

/** A file open for reading, and what fstat said of it. */
export interface OpenedFile {
  fd: number;
  stats: Stats;
}

/**
 * Why a file cannot be read as a regular file (exit 2): `why`
 * in a few words, `code` Node's errno code when there is one.
 */
export class NotReadableError extends InputError {
  constructor(
    message: string,
    readonly why: string,
    readonly code: string | undefined,
  ) {
    super(message);
  }
}

const { O_RDONLY, O_NONBLOCK, O_NOFOLLOW } = constants;

/**
 * Open `file` for reading without blocking; undefined when it does not exist,
 * NotReadableError (naming `shown`) when it is not a regular file or cannot be opened.
 */
export function openRegular(file: string, shown: string, options: ReadOptions = {}): OpenedFile | undefined {
  let fd: number;
  try {
    fd = openSync(file, O_RDONLY | O_NONBLOCK | (options.follow === false ? O_NOFOLLOW : 0));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (code === 'ELOOP')
      throw new NotReadableError(
        `${shown}: is a symlink; refusing to read through it. Replace it with a regular file.`,
        'it is a symlink',
        code,
      );
    if (code === 'EISDIR')
      throw new NotReadableError(
        `${shown}: is a folder, not a file. Replace it with a regular file.`,
        'it is a folder, not a file',
        code,
      );
    if (code === 'EACCES')
      throw new NotReadableError(
        `${shown}: permission denied. Make it readable (chmod u+r ${shown}).`,
        'permission denied',
        code,
      );
    const why = (error as Error).message.replace(/^[A-Z]+: /, '').replace(/, \w+( '.*')?$/, '');
    throw new NotReadableError(`${shown}: cannot be read (${why}).`, why, code);
  }
  const stats = fstatSync(fd);
  if (stats.isFile()) return { fd, stats };
  closeSync(fd);
  if (stats.isDirectory())
    throw new NotReadableError(
      `${shown}: is a folder, not a file. Replace it with a regular file.`,
      'it is a folder, not a file',
      undefined,
    );
  const what = stats.isFIFO() ? 'a FIFO' : stats.isSocket() ? 'a socket' : 'a device';
  throw new NotReadableError(
    `${shown}: is ${what}, not a regular file; refusing to read it (it could block the supervisor). ` +
      `Replace it with a regular file.`,
    `it is ${what}, not a regular file`,
    undefined,
  );
}

/** The first `maxBytes` (default: all) of a regular file as UTF-8; undefined when missing; see openRegular. */
export function readRegular(
  file: string,
  shown: string,
  options: ReadOptions & { maxBytes?: number } = {},
): string | undefined {
  const opened = openRegular(file, shown, options);
  if (!opened) return undefined;
  try {
    return readFromStart(opened.fd, Math.min(opened.stats.size, options.maxBytes ?? Infinity)).toString('utf8');
  } finally {
    closeSync(opened.fd);
  }
}

/** Up to `bytes` bytes from the start of `fd`, stopping early at its end. */
export function readFromStart(fd: number, bytes: number): Buffer {
  const buffer = Buffer.allocUnsafe(bytes);
  let got = 0;
  for (let n = -1; got < bytes && n !== 0; got += n) n = readSync(fd, buffer, got, bytes - got, got);
  return buffer.subarray(0, got);
}
