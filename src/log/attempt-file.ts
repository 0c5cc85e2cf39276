import { closeSync } from 'node:fs';
import path from 'node:path';
import { UnsafePathError } from '../errors.js';
import { openFileIn } from '../fs/open.js';
import type { RealDir } from '../fs/real-dir.js';
import { writeWhole } from '../fs/replace.js';

/**
 * One attempt's stdout or stderr on disk. The file is created at the first byte (an agent
 * that prints nothing leaves no empty file), exclusively and never through a planted symlink.
 * A file that cannot be written (disk full, a planted link) stops being written, never the
 * attempt: the reply is still judged from memory, and the reason is reported with it.
 */
export class AttemptFile {
  private fd: number | undefined;
  /** Bytes on disk. */
  bytes = 0;
  /** Why the copy on disk stopped, if it did. */
  error: string | undefined;
  /** Something planted at the file's name: the run must stop once the attempt is over. */
  refusal: UnsafePathError | undefined;

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
      if (error instanceof UnsafePathError) this.refusal = error;
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
