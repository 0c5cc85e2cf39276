import { readdirSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';

/** Where a board-relative path points, or why it may not be used. */
export type BoardPath = { ok: true; absolute: string } | { ok: false; reason: string };

/**
 * Resolve `relative` inside `boardDir`. Absolute paths, `..` escapes, NUL bytes and
 * symlinks that lead outside the folder are refused: agents and the Manager choose
 * these paths, and nothing they say may make the supervisor read or run outside it.
 */
export function resolveInBoard(boardDir: string, relative: string): BoardPath {
  const base = path.resolve(boardDir);
  return resolveChecked(lexicalCheck(base, relative), () => realpathSync.native(base));
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
  const base = path.resolve(boardDir);
  let realBoard: string | undefined;
  const realBoardDir = () => (realBoard ??= realpathSync.native(base));
  const lexical = relatives.map((relative) => lexicalCheck(base, relative));
  const folders = lexical.map((where) => (where.ok ? path.dirname(where.absolute) : ''));
  const counts = new Map<string, number>();
  for (const folder of folders) if (folder) counts.set(folder, (counts.get(folder) ?? 0) + 1);
  const listed = new Map<string, Set<string> | null>();
  for (const [folder, count] of counts) listed.set(folder, count >= LIST_FROM ? regularFilesInside(folder, realBoardDir) : null);
  return lexical.map((where, i) => {
    if (!where.ok) return where;
    if (listed.get(folders[i] as string)?.has(path.basename(where.absolute))) return { ok: true, absolute: where.absolute, file: true };
    const one = resolveChecked(where, realBoardDir);
    return one.ok ? { ok: true, absolute: one.absolute, file: isFile(one.absolute) } : one;
  });
}

// The names of a folder's regular files, or null when its real path is not inside the board (or it cannot be listed).
function regularFilesInside(folder: string, realBoardDir: () => string): Set<string> | null {
  try {
    const real = realpathSync.native(folder);
    if (real !== realBoardDir() && !isInside(realBoardDir(), real)) return null;
    return new Set(
      readdirSync(folder, { withFileTypes: true })
        .filter((entry) => entry.isFile())
        .map((entry) => entry.name),
    );
  } catch {
    return null;
  }
}

// A relative POSIX path of plain names: no empty, `.` or `..` segment and no NUL byte. Joined
// to the (resolved) board folder it is inside it, with nothing to normalise or compare.
const PLAIN = /^(?:(?!\.\.?\/)[^/\0]+\/)*(?!\.\.?$)[^/\0]+$/;

// `base` is the board folder, resolved (absolute and normalised).
function lexicalCheck(base: string, relative: string): BoardPath {
  if (path.sep === '/' && PLAIN.test(relative)) return { ok: true, absolute: base === '/' ? `/${relative}` : `${base}/${relative}` };
  if (relative.length === 0) return { ok: false, reason: 'is empty' };
  if (relative.includes('\0')) return { ok: false, reason: 'contains a NUL byte' };
  if (path.isAbsolute(relative)) return { ok: false, reason: 'is absolute; use a path relative to the board folder' };
  const absolute = path.resolve(base, relative);
  if (!isInside(base, absolute)) return { ok: false, reason: 'leaves the board folder' };
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
