import { readdirSync, realpathSync, statSync, type Dirent } from 'node:fs';
import path from 'node:path';

/** Where a board-relative path points, or why it may not be used. */
export type BoardPath = { ok: true; absolute: string } | { ok: false; reason: string };

/**
 * Resolve `relative` inside `boardDir`. Absolute paths, `..` escapes, NUL bytes and
 * symlinks that lead outside the folder are refused: agents and the Manager choose
 * these paths, and nothing they say may make the supervisor read or run outside it.
 */
export function resolveInBoard(boardDir: string, relative: string): BoardPath {
  return resolveChecked(lexicalCheck(boardDir, relative), () => realpathSync.native(boardDir));
}

// Symlinks are followed only once the path is known to stay inside the folder on paper.
function resolveChecked(lexical: BoardPath, realBoardDir: () => string): BoardPath {
  if (!lexical.ok) return lexical;
  let real: string;
  try {
    // One realpath(3) call instead of an lstat per path component.
    real = realpathSync.native(lexical.absolute);
  } catch {
    return lexical; // does not exist (yet): callers decide whether that matters
  }
  if (!isInside(realBoardDir(), real)) return { ok: false, reason: 'is a symlink that leads outside the board folder' };
  return lexical;
}

/** A resolved board path, and whether it is an existing regular file (symlinks followed). */
export type BoardFile = BoardPath & { file?: boolean };

// Below this many paths in one folder, a stat each is cheaper than listing the folder.
const LIST_FROM = 32;

/**
 * `resolveInBoard` for many paths at once, also telling which are existing files. A folder
 * holding many of them is listed once: a regular file in a folder whose real path is inside
 * the board is inside the board, so thousands of tasks cost a readdir, not two system calls
 * each. Symlinks, and names the listing does not show, take the one-by-one way.
 */
export function resolveAllInBoard(boardDir: string, relatives: readonly string[]): BoardFile[] {
  let realBoard: string | undefined;
  const realBoardDir = () => (realBoard ??= realpathSync.native(boardDir));
  const lexical = relatives.map((relative) => lexicalCheck(boardDir, relative));
  const perFolder = new Map<string, number>();
  for (const where of lexical) if (where.ok) perFolder.set(path.dirname(where.absolute), (perFolder.get(path.dirname(where.absolute)) ?? 0) + 1);
  const listings = new Map<string, Map<string, Dirent> | null>();
  const listing = (folder: string) => {
    if (!listings.has(folder)) listings.set(folder, (perFolder.get(folder) ?? 0) >= LIST_FROM ? listInside(folder, realBoardDir) : null);
    return listings.get(folder);
  };
  return lexical.map((where) => {
    if (!where.ok) return where;
    if (listing(path.dirname(where.absolute))?.get(path.basename(where.absolute))?.isFile()) return { ...where, file: true };
    const one = resolveChecked(where, realBoardDir);
    return one.ok ? { ...one, file: isFile(one.absolute) } : one;
  });
}

// A folder's entries by name, or null when its real path is not inside the board (or it cannot be listed).
function listInside(folder: string, realBoardDir: () => string): Map<string, Dirent> | null {
  try {
    const real = realpathSync.native(folder);
    if (real !== realBoardDir() && !isInside(realBoardDir(), real)) return null;
    return new Map(readdirSync(folder, { withFileTypes: true }).map((entry) => [entry.name, entry]));
  } catch {
    return null;
  }
}

function lexicalCheck(boardDir: string, relative: string): BoardPath {
  if (relative.length === 0) return { ok: false, reason: 'is empty' };
  if (relative.includes('\0')) return { ok: false, reason: 'contains a NUL byte' };
  if (path.isAbsolute(relative)) return { ok: false, reason: 'is absolute; use a path relative to the board folder' };
  const absolute = path.resolve(boardDir, relative);
  if (!isInside(boardDir, absolute)) return { ok: false, reason: 'leaves the board folder' };
  return { ok: true, absolute };
}

function isFile(file: string): boolean {
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

function isInside(dir: string, target: string): boolean {
  const rel = path.relative(dir, target);
  // `..name` is a file in the folder; only `..` itself or `../…` leaves it.
  return rel !== '' && rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel);
}
