import { realpathSync } from 'node:fs';
import path from 'node:path';

/** Where a board-relative path points, or why it may not be used. */
export type BoardPath = { ok: true; absolute: string } | { ok: false; reason: string };

/**
 * Resolve `relative` inside `boardDir`. Absolute paths, `..` escapes, NUL bytes and
 * symlinks that lead outside the folder are refused: agents and the Manager choose
 * these paths, and nothing they say may make the supervisor read or run outside it.
 */
export function resolveInBoard(boardDir: string, relative: string): BoardPath {
  if (relative.length === 0) return { ok: false, reason: 'is empty' };
  if (relative.includes('\0')) return { ok: false, reason: 'contains a NUL byte' };
  if (path.isAbsolute(relative)) return { ok: false, reason: 'is absolute; use a path relative to the board folder' };
  const absolute = path.resolve(boardDir, relative);
  if (!isInside(boardDir, absolute)) return { ok: false, reason: 'leaves the board folder' };
  let real: string;
  try {
    real = realpathSync(absolute);
  } catch {
    return { ok: true, absolute }; // does not exist (yet): callers decide whether that matters
  }
  if (!isInside(realpathSync(boardDir), real)) return { ok: false, reason: 'is a symlink that leads outside the board folder' };
  return { ok: true, absolute };
}

function isInside(dir: string, target: string): boolean {
  const rel = path.relative(dir, target);
  // `..name` is a file in the folder; only `..` itself or `../…` leaves it.
  return rel !== '' && rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel);
}
