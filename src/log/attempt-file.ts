import { closeSync, constants, openSync, writeSync } from 'node:fs';

/**
 * One attempt's stdout or stderr on disk. The file is created at the first byte (an agent
 * that prints nothing leaves no empty file), exclusively and without following a symlink
 * planted at its name. A file that cannot be written (disk full, folder removed) stops
 * being written, never the attempt: the reply is still judged from memory.
 */
export class AttemptFile {
  private fd: number | undefined;
  /** Bytes on disk. */
  bytes = 0;
  /** Why the copy on disk stopped, if it did. */
  error: string | undefined;

  constructor(readonly path: string) {}

  /** Whether the file exists on disk. */
  get created(): boolean {
    return this.bytes > 0 || this.fd !== undefined;
  }

  /** Append a chunk; after a failure, nothing more is written. */
  write(chunk: Buffer): void {
    if (this.error !== undefined || chunk.length === 0) return;
    try {
      this.fd ??= openSync(this.path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
      for (let written = 0; written < chunk.length; ) written += writeSync(this.fd, chunk, written);
      this.bytes += chunk.length;
    } catch (error) {
      this.error = `${(error as NodeJS.ErrnoException).code ?? 'error'}: ${(error as Error).message}`;
      this.close();
    }
  }

  /** Close the file if it was opened. */
  close(): void {
    if (this.fd === undefined) return;
    try {
      closeSync(this.fd);
    } catch {
      // closing after a failed write: nothing left to save
    }
    this.fd = undefined;
  }
}
