import { closeSync, constants, fstatSync, openSync } from 'node:fs';
import path from 'node:path';
import { InputError, SupervisorError } from '../errors.js';
import { eventsFile } from '../log/events.js';

/** A board's events.jsonl, open for reading; `size` is taken at opening, so a run appending meanwhile changes nothing read. */
export interface HistoryFile {
  fd: number;
  size: number;
}

/** The events file of the board in `boardDir`. */
export function historyPath(boardDir: string): string {
  return eventsFile(path.join(boardDir, '.kanban-supervisor'));
}

/**
 * Open the board's events.jsonl, hand it to `read` and close it again. No file yet is no
 * history (undefined). Anything else that keeps it from being read — no permission, not a
 * file, an I/O error while `read` reads — is an InputError naming the file and the fix,
 * never an empty history: a person must not be told "not run yet" about a board that ran.
 */
export function withHistory<T>(boardDir: string, read: (history: HistoryFile) => T): T | undefined {
  const file = historyPath(boardDir);
  let fd: number;
  try {
    // O_NONBLOCK: a FIFO planted in its place must not hang the command at open.
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw unreadable(file, error);
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw unreadable(file, new Error(stat.isDirectory() ? 'it is a folder, not a file' : 'it is not a regular file'));
    return read({ fd, size: stat.size });
  } catch (error) {
    // System errors (EACCES, EIO, … and our short read) are about the file; anything else,
    // Node's own ERR_* included, is ours to report as a bug.
    const code = (error as NodeJS.ErrnoException).code;
    const aboutTheFile = typeof code === 'string' && /^E[A-Z]+$/.test(code);
    throw error instanceof SupervisorError || !aboutTheFile ? error : unreadable(file, error);
  } finally {
    closeSync(fd);
  }
}

/** The one-line error for a history that cannot be read: what, why, and what to do. */
export function unreadable(file: string, error: unknown): InputError {
  const shown = path.relative(process.cwd(), file) || file;
  const code = (error as NodeJS.ErrnoException).code;
  const fix =
    code === 'EACCES' || code === 'EPERM'
      ? `Give yourself read access (chmod u+r ${shown}) and try again.`
      : `Move it aside (mv ${shown} ${shown}.old) to start a new history, or restore it; the board itself is not affected.`;
  return new InputError(`${shown}: the event history cannot be read (${describe(error)}). ${fix}`);
}

// Node's messages repeat the code and the path ("EACCES: permission denied, open '…'"): keep the words.
function describe(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/^[A-Z]+: /, '').replace(/, \w+( '.*')?$/, '');
}
