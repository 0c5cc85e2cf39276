/** One line of a file, without its line end (LF or CRLF), and the byte offset where it starts. */
export interface Line {
  text: string;
  start: number;
}

/** How a line reader reads. */
export interface LineReadOptions {
  /** Bytes per read (default 1 MiB). */
  chunkBytes?: number;
  /**
   * A line longer than this is skipped, never held whole (default 8 MiB): events are a few
   * hundred bytes, so such a line is damage (a run of NUL bytes after a crash, a stray file).
   */
  maxLineBytes?: number;
}

/** The defaults of LineReadOptions. */
export const LINE_READ_DEFAULTS = { chunkBytes: 1 << 20, maxLineBytes: 8 << 20 } as const;

/** The LF byte: it never occurs inside a multi-byte UTF-8 character, so lines are split on bytes. */
export const LF = 0x0a;

const CR = 0x0d;

/**
 * A line's bytes (without the LF) decoded, its CR dropped; undefined
 * for an empty line or one over maxLineBytes (CR included).
 */
export function decodeLine(bytes: Buffer, start: number, maxLineBytes: number): Line | undefined {
  if (bytes.length > maxLineBytes) return undefined;
  const end = bytes.length > 0 && bytes[bytes.length - 1] === CR ? bytes.length - 1 : bytes.length;
  return end > 0 ? { text: bytes.toString('utf8', 0, end), start } : undefined;
}

/** The error for a read that got fewer bytes than the file's size promised. */
export function shortRead(pos: number): Error {
  return Object.assign(new Error(`it shrank while it was read: a short read at byte ${pos}`), { code: 'ESHORTREAD' });
}
