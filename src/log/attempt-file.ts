import { closeSync } from 'node:fs';
import path from 'node:path';
import { UnsafePathError, UnwritableError } from '../errors.js';
import { openFileIn } from '../fs/safe-open.js';
import type { RealDir } from '../fs/real-dir.js';
import { writeWhole } from '../fs/replace.js';

/**
 * One attempt's stdout or stderr on disk. The file is created at the first byte (an agent
 * that prints nothing leaves no empty file), exclusively and never through a planted symlink.
 * A file that cannot be written (disk full, a planted link) stops being written, never the
 * attempt: the reply is still judged from memory, and the reason is reported with it — then
 * the run stops (exit 73) rather than go on as if the agent's output had been kept.
 */
export class AttemptFile {
  private fd: number | undefined;
  /** Bytes on disk. */
  bytes = 0;
  /** Why the copy on disk stopped, if it did. */
  error: string | undefined;
  /**
   * Why the run must stop once the attempt is over: something planted at the file's name, or
   * the log could not be written in full (a full disk), which the person must hear about.
   */
  refusal: UnwritableError | undefined;

  constructor(
    private readonly dir: RealDir,
    /** The file's name in the run folder. */
    public name: string,
  ) {}

  /** The file's path as the run folder shows it. */
  get path(): string {
    return path.join(this.dir.shown, this.name);
  }

  /** Whether the file exists on disk. */
  get created(): boolean {
    return this.fd !== undefined || this.bytes > 0;
  }

  /** Append a chunk; after a failure, nothing more is written. */
  write(chunk: Buffer): void {
    if (this.error !== undefined || chunk.length === 0) return;
    try {
      this.fd ??= openFileIn(this.dir, this.name, 'exclusive', { mode: 0o600 });
      writeWhole(this.fd, chunk, this.path);
      this.bytes += chunk.length;
    } catch (error) {
      this.error = (error as Error).message;
      this.refusal = error instanceof UnsafePathError ? error : incompleteLog(this.path, this.bytes, error);
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

// "Cannot write <file>: the disk is full (ENOSPC). Free some space and run again.", saying
// that the attempt's log is incomplete and how much of it was kept.
function incompleteLog(shown: string, kept: number, error: unknown): UnwritableError {
  const message = (error as Error).message;
  const prefix = `Cannot write ${shown}: `;
  const cause =
    error instanceof UnwritableError && message.startsWith(prefix)
      ? message.slice(prefix.length)
      : `${message}. Check the disk and run again.`;
  return new UnwritableError(
    `Cannot write ${shown} in full: this attempt's output log is incomplete (${kept} bytes kept, the rest lost), ` +
      `so the run stopped after it; ${cause}`,
  );
}
