import { InternalError, UnsafePathError, UnwritableError } from '../errors.js';

/**
 * The one-line messages of a write the supervisor refuses or cannot make inside the board
 * folder. Each names the path and the cause and says what to do; all are UnwritableError
 * (exit 73), so a run stops in order instead of crashing or writing somewhere else.
 */

/** Causes an errno code gives, as a person reads them, with the fix. */
const CAUSES: Readonly<Record<string, string>> = {
  ENOSPC: 'the disk is full (ENOSPC). Free some space and run again.',
  EDQUOT: 'the disk quota is used up (EDQUOT). Free some space and run again.',
  EFBIG: 'the file is larger than this file system allows (EFBIG). Move it away and run again.',
  EROFS: 'the file system is read-only (EROFS). Make it writable and run again.',
  EACCES: 'no permission (EACCES). Give yourself write permission there and run again.',
  EPERM: 'not permitted (EPERM; an immutable or append-only file?). Check its attributes (lsattr) and run again.',
  ENOENT: 'it does not exist (ENOENT; removed meanwhile?). Run again.',
  EEXIST: 'it already exists (left by an earlier run?). Remove it and run again.',
};

/**
 * The UnwritableError for a failed file operation on `shown`, or the error unchanged when its
 * code says nothing about whether the board can be written (a bug or an unexpected failure).
 */
export function unwritableFrom(shown: string, doing: string, error: unknown): unknown {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  const cause = code === undefined ? undefined : CAUSES[code];
  return cause === undefined ? error : new UnwritableError(`Cannot ${doing} ${shown}: ${cause}`);
}

/** A symlink where the supervisor meant to write or to find a folder. */
export function plantedSymlink(shown: string): UnsafePathError {
  return new UnsafePathError(
    `${shown} is a symlink (planted in the board folder?); refusing to write through it. Remove it and run again.`,
  );
}

/** Something other than a folder where a folder must be. */
export function notAFolder(shown: string): UnsafePathError {
  return new UnsafePathError(`${shown} is not a folder; refusing to write in it. Remove it and run again.`);
}

/** A FIFO, socket or device where a regular file must be (opening a FIFO could block forever). */
export function notARegularFile(shown: string): UnsafePathError {
  return new UnsafePathError(
    `${shown} is not a regular file (a FIFO or a device?); refusing to write to it. Remove it and run again.`,
  );
}

/** A file with more than one name: one of them may be planted to a file outside the board folder. */
export function hardLinked(shown: string, links: number): UnsafePathError {
  return new UnsafePathError(
    `${shown} has ${links} hard links (one may point at a file outside the board folder); ` +
      `refusing to write to it. Remove it and run again.`,
  );
}

/** A folder or file in the board's state owned by another user. */
export function notOwned(shown: string, owner: number, me: number): UnsafePathError {
  return new UnsafePathError(
    `${shown} is owned by uid ${owner}, not by you (uid ${me}); refusing to write there. Remove it and run again.`,
  );
}

/** What was opened is not where it was meant to be: a folder on the way was swapped meanwhile. */
export function movedWhileOpening(shown: string, actual: string): UnsafePathError {
  return new UnsafePathError(
    `${shown} ended up at ${actual} while it was opened ` +
      `(a folder on its way was moved or swapped for a symlink); refusing to write there. ` +
      `Remove what replaced the folder and run again.`,
  );
}

/** A relative path that could leave the board folder: only our own code builds these, so it is a bug. */
export function badRelativePath(relative: string): InternalError {
  return new InternalError(
    `kanban-supervisor tried to write ${JSON.stringify(relative)}, ` +
      `which is not a plain path inside the board folder. This is a bug: please report it.`,
  );
}
