import { InputError } from '../errors.js';
import { NotReadableError, readRegular } from '../fs/safe-read.js';
import { runnable } from '../util/self-command.js';

/**
 * kanban.yaml could not be read (gone, a folder, no permission): exit 2,
 * with the system's code, so a caller can tell a board moved away.
 */
export class BoardReadError extends InputError {
  constructor(
    readonly file: string,
    readonly code: string | undefined,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The one read of kanban.yaml's text, opened without blocking and only as a regular file (a FIFO
 * planted in its place cannot hold the supervisor in open()); a file that cannot be read is a
 * BoardReadError (exit 2) saying why.
 */
export function readBoardText(file: string): string {
  let text: string | undefined;
  try {
    text = readRegular(file, file);
  } catch (error) {
    if (!(error instanceof NotReadableError)) throw error;
    throw new BoardReadError(
      file,
      error.code,
      error.code === 'EISDIR' || error.code === 'EACCES' ? readFailure(file, error) : error.message,
    );
  }
  if (text === undefined) throw new BoardReadError(file, 'ENOENT', readFailure(file, { code: 'ENOENT' }));
  return text;
}

/**
 * A one-line reason why a file could not be read; `missing` is the fix
 * when it does not exist (by default: check the path or create a board).
 */
export function readFailure(file: string, error: unknown, missing?: string): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT')
    return `${file}: no such file. ${missing ?? `Check the path, or create a board with \`${runnable('init')}\`.`}`;
  if (code === 'EISDIR') return `${file}: is a folder, not a file. Pass the path of kanban.yaml.`;
  if (code === 'EACCES') return `${file}: permission denied. Make it readable.`;
  return `${file}: cannot be read (${(error as Error).message}).`;
}
