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
  const plan = planFor(base, relatives);
  const { parts, counts } = plan;
  const listed = new Map<string, Set<string> | null>();
  for (const [folder, count] of counts) listed.set(folder, count >= LIST_FROM ? regularFilesInside(folder, realBoardDir) : null);
  // The same list against the very same listings gives the same answer, if the listings gave all of it.
  if (plan.answer && [...listed].every(([folder, names]) => plan.answer?.listed.get(folder) === names)) return plan.answer.result;
  let fromListings = true;
  const result = parts.map(({ where, folder, name, listedFile }): BoardFile => {
    if (!where.ok) return where;
    if (listed.get(folder)?.has(name)) return listedFile;
    fromListings = false;
    const one = resolveChecked(where, realBoardDir);
    return one.ok ? { ok: true, absolute: one.absolute, file: isFile(one.absolute) } : one;
  });
  plan.answer = fromListings ? { listed, result } : undefined;
  return result;
}

/** A path checked on paper, split into the folder to list and the name to look for there. */
interface PathParts {
  where: BoardPath;
  folder: string;
  name: string;
  /** The answer when the folder's listing shows the name as a regular file. */
  listedFile: BoardFile;
}

/** What checking a list of paths takes: each path on paper, and how many paths each folder holds. */
interface Plan {
  base: string;
  relatives: readonly string[];
  parts: PathParts[];
  counts: Map<string, number>;
  /** The last answer, and the listings it came from. */
  answer?: { listed: Map<string, Set<string> | null>; result: BoardFile[] };
}

// The Manager answers with the same task list step after step; the checks on paper depend on
// nothing but the text, so the plan of the last list is kept (the files are checked each time).
let lastPlan: Plan | undefined;

function planFor(base: string, relatives: readonly string[]): Plan {
  const last = lastPlan;
  if (last && last.base === base && last.relatives.length === relatives.length && relatives.every((r, i) => r === last.relatives[i])) return last;
  const parts = relatives.map((relative) => splitPath(base, relative));
  const counts = new Map<string, number>();
  for (const part of parts) if (part.where.ok) counts.set(part.folder, (counts.get(part.folder) ?? 0) + 1);
  lastPlan = { base, relatives: [...relatives], parts, counts };
  return lastPlan;
}

// Folder and name by the last separator of the absolute (normalised) path.
function splitPath(base: string, relative: string): PathParts {
  const where = lexicalCheck(base, relative);
  const absolute = where.ok ? where.absolute : '';
  const cut = absolute.lastIndexOf(path.sep);
  return { where, folder: absolute.slice(0, cut || 1), name: absolute.slice(cut + 1), listedFile: { ok: true, absolute, file: true } };
}

// The names of a folder's regular files, or null when its real path is not inside the board (or it cannot be listed).
function regularFilesInside(folder: string, realBoardDir: () => string): Set<string> | null {
  try {
    const real = realpathSync.native(folder);
    if (real !== realBoardDir() && !isInside(realBoardDir(), real)) return null;
    return listRegularFiles(real);
  } catch {
    return null;
  }
}

/** A folder's listing, and the folder's identity and mtime when it was taken. */
interface Listing {
  key: string;
  names: Set<string>;
}

// The Manager's task list is checked every step, and listing a folder of ten thousand tasks is
// most of that. Adding, removing or renaming an entry changes the folder's mtime, so a listing
// stays true while the mtime does, with one catch: a change within the same clock tick as the
// listing may keep the mtime it had. So a listing is kept only if the folder's mtime was over
// RACY_MS old when it was taken (git's "racily clean" rule).
const listings = new Map<string, Listing>();
const RACY_MS = 1000;

function listRegularFiles(folder: string): Set<string> {
  const before = Date.now();
  const stat = statSync(folder, { bigint: true });
  const key = `${stat.dev}:${stat.ino}:${stat.mtimeNs}:${stat.ctimeNs}`;
  const kept = listings.get(folder);
  if (kept?.key === key) return kept.names;
  const names = new Set(
    readdirSync(folder, { withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => entry.name),
  );
  if (Number(stat.mtimeMs) < before - RACY_MS) listings.set(folder, { key, names });
  else listings.delete(folder);
  return names;
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
