import { readdirSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';

/** Where a board-relative path points, or why it may not be used. */
export type BoardPath = { ok: true; absolute: string } | { ok: false; reason: string };

/**
 * A resolved board path, whether it is an existing regular file (symlinks followed), and its
 * real path when its folder's listing gave it (a regular file there, not a link to one).
 */
export type BoardFile = BoardPath & { file?: boolean; real?: string };

/**
 * Resolve `relative` inside `boardDir`. Absolute paths, `..` escapes, NUL bytes, names
 * starting with `-` and symlinks that lead outside the folder are refused: agents and the
 * Manager choose these paths, and nothing they say may make the supervisor read or run outside it.
 */
export function resolveInBoard(boardDir: string, relative: string): BoardPath {
  return followInside(lexicalCheck(path.resolve(boardDir), relative), () => realpathSync.native(boardDir));
}

// Below this many paths in one folder, a stat each is cheaper than listing the folder.
const LIST_FROM = 32;

/**
 * `resolveInBoard` for many paths at once, also telling which are existing files. A folder
 * holding many of them is listed once, so a board of thousands of tasks costs a readdir a
 * step, not two system calls a task: a regular file listed in a folder whose real path is
 * inside the board is inside the board. Symlinks and names not listed take the one-by-one way.
 */
export function resolveAllInBoard(boardDir: string, relatives: readonly string[]): BoardFile[] {
  const base = path.resolve(boardDir);
  let realBoard: string | undefined;
  const realBoardDir = () => (realBoard ??= realpathSync.native(base));
  const checked = relatives.map((relative) => lexicalCheck(base, relative));
  const perFolder = new Map<string, number>();
  for (const where of checked)
    if (where.ok) perFolder.set(path.dirname(where.absolute), (perFolder.get(path.dirname(where.absolute)) ?? 0) + 1);
  const listings = new Map<string, Listing | null>();
  for (const [folder, count] of perFolder)
    if (count >= LIST_FROM) listings.set(folder, regularFilesInside(folder, realBoardDir));
  return checked.map((where): BoardFile => {
    if (!where.ok) return where;
    const listing = listings.get(path.dirname(where.absolute));
    const name = path.basename(where.absolute);
    if (listing?.names.has(name)) return { ...where, file: true, real: path.join(listing.real, name) };
    const one = followInside(where, realBoardDir);
    return one.ok ? { ...one, file: isFile(one.absolute) } : one;
  });
}

/**
 * The normal form of a board path (`tasks/./a.md` and `tasks//a.md`
 * are `tasks/a.md`), or the path itself if it has none.
 */
export function normalPath(relative: string): string {
  return relative.length > 0 && !relative.includes('\0') ? path.posix.normalize(relative).replace(/\/$/, '') : relative;
}

// Symlinks are followed only once the path is known to stay inside the folder on paper.
function followInside(lexical: BoardPath, realBoardDir: () => string): BoardPath {
  if (!lexical.ok) return lexical;
  let real: string;
  try {
    real = realpathSync.native(lexical.absolute);
  } catch {
    return lexical; // does not exist (yet): callers decide whether that matters
  }
  return isInside(realBoardDir(), real)
    ? lexical
    : { ok: false, reason: 'is a symlink that leads outside the board folder' };
}

// A folder's real path and the names of its regular files.
type Listing = { real: string; names: Set<string> };

// A folder's listing, or null when its real path is not inside the board (or it cannot be listed).
function regularFilesInside(folder: string, realBoardDir: () => string): Listing | null {
  try {
    const real = realpathSync.native(folder);
    if (real !== realBoardDir() && !isInside(realBoardDir(), real)) return null;
    const names = readdirSync(real, { withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => entry.name);
    return { real, names: new Set(names) };
  } catch {
    return null;
  }
}

// `base` is the board folder, resolved (absolute and normalised).
function lexicalCheck(base: string, relative: string): BoardPath {
  if (relative.length === 0) return { ok: false, reason: 'is empty' };
  if (relative.includes('\0')) return { ok: false, reason: 'contains a NUL byte' };
  if (path.isAbsolute(relative)) return { ok: false, reason: 'is absolute; use a path relative to the board folder' };
  // An agent gets task paths as arguments: one starting with `-` would be read as an option.
  if (relative.startsWith('-'))
    return { ok: false, reason: 'starts with "-", which an agent would read as an option; rename the file' };
  // Normalised, a relative path stays inside unless it is `.` or starts with `..`: no resolving
  // against the folder per path, which a board of 10,000 tasks would pay on every check.
  const normal = path.normalize(relative).replace(TRAILING_SEP, '');
  if (normal === '.' || normal === '..' || normal.startsWith(`..${path.sep}`))
    return { ok: false, reason: 'leaves the board folder' };
  return { ok: true, absolute: base.endsWith(path.sep) ? base + normal : base + path.sep + normal };
}

const TRAILING_SEP = /\/+$/; // Linux and macOS: only "/" separates

function isFile(file: string): boolean {
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/** Whether `target` is strictly inside folder `dir` (both absolute). */
export function isInside(dir: string, target: string): boolean {
  const rel = path.relative(dir, target);
  // `..name` is a file in the folder; only `..` itself or `../…` leaves it.
  return rel !== '' && rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel);
}
