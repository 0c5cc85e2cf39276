import {
  closeSync,
  constants,
  existsSync,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readlinkSync,
  realpathSync,
  type Stats,
} from 'node:fs';
import path from 'node:path';
import { badRelativePath, notAFolder, notOwned, plantedSymlink, unwritableFrom } from './refuse.js';

/**
 * Folders inside the board that are really there: each step of the way is a folder (not a
 * symlink) owned by us, created if missing, never `mkdir -p` through a link.
 *
 * On Linux the walk holds each folder open and names the next step through
 * `/proc/self/fd/<fd>/<name>`, which the kernel resolves from the open folder itself (an
 * `openat`, which Node lacks): once a folder is open, swapping it or its parents for a
 * symlink cannot redirect what is opened in it. Elsewhere the walk goes by path and
 * `stillThere()` re-checks afterwards, which narrows the race but cannot close it.
 */

/** How to walk: through open folders (Linux) or by path (elsewhere; tests force either). */
export interface WalkOptions {
  /** Name entries through `/proc/self/fd` (default: on Linux, when /proc is mounted). */
  viaProc?: boolean;
  /** Mode of folders created on the way (default 0o700: the state is ours alone). */
  dirMode?: number;
  /**
   * Walk folders the board folder's owner owns too, not only our own: the shipped Manager run by
   * root on a person's board writes its task files. Never for the supervisor's state. A fenced
   * agent is that owner and may swap those folders, which the walk's refusal of symlinks holds.
   */
  ownersFolders?: boolean;
}

/** A real folder inside the board, held open. Close it when done. */
export interface RealDir {
  /** The folder's absolute real path. */
  readonly real: string;
  /** The folder as shown in messages (the board folder as given, joined with the relative path). */
  readonly shown: string;
  /** The folder, open for reading (to fsync it after a rename). */
  readonly fd: number;
  /** Whether entries are named through the open folder (Linux) rather than by path. */
  readonly viaProc: boolean;
  /** How to name `name` in this folder in a path call so it resolves in this very folder where possible. */
  at(name: string): string;
  /** Whether the folder is still at `real`, reached through real folders only. */
  stillThere(): boolean;
  close(): void;
}

const DIR_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;

/** The parts of a relative path inside the board; anything that could leave it is a bug. */
export function splitRelative(relative: string): string[] {
  if (relative === '' || relative === '.') return [];
  const parts = relative.split('/');
  if (
    path.isAbsolute(relative) ||
    parts.some((part) => part === '' || part === '.' || part === '..' || part.includes('\0'))
  )
    throw badRelativePath(relative);
  return parts;
}

/** Open the folder `relativeDir` of the board, checking (and creating, with `create`) every step. */
export function openRealDir(
  boardDir: string,
  relativeDir: string,
  options: WalkOptions & { create?: boolean } = {},
): RealDir {
  const parts = splitRelative(relativeDir);
  const viaProc = options.viaProc ?? (process.platform === 'linux' && existsSync('/proc/self/fd'));
  let real: string;
  try {
    real = realpathSync.native(boardDir);
  } catch (error) {
    throw unwritableFrom(boardDir, 'find the board folder', error);
  }
  let fd = openStep(real, boardDir);
  const owner = options.ownersFolders === true ? fstatSync(fd).uid : undefined;
  const ancestors: string[] = [];
  for (const [index, name] of parts.entries()) {
    const shown = path.join(boardDir, ...parts.slice(0, index + 1));
    const entry = viaProc ? procPath(fd, name) : path.join(real, name);
    let next: number | undefined;
    try {
      next = openStep(entry, shown, options.create === true ? (options.dirMode ?? 0o700) : undefined);
      checkOwned(fstatSync(next), shown, owner);
    } catch (error) {
      closeSync(fd);
      if (next !== undefined) closeSync(next);
      throw error;
    }
    closeSync(fd);
    ancestors.push(real);
    fd = next;
    real = path.join(real, name);
  }
  return handle(fd, real, path.join(boardDir, relativeDir), viaProc, ancestors);
}

/** Check (creating what is missing) that `relativeDir` is a real folder of ours; returns its real path. */
export function ensureRealDir(boardDir: string, relativeDir: string, options: WalkOptions = {}): string {
  const dir = openRealDir(boardDir, relativeDir, { ...options, create: true });
  dir.close();
  return dir.real;
}

/** The path naming `name` inside the folder open as `fd`, resolved by the kernel from the fd itself. */
export function procPath(fd: number, name: string): string {
  return `/proc/self/fd/${fd}/${name}`;
}

// Open one step as a folder without following a symlink; create it first when asked.
function openStep(entry: string, shown: string, createMode?: number): number {
  for (let tries = 0; ; tries++) {
    try {
      return openSync(entry, DIR_FLAGS);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' && createMode !== undefined && tries === 0) {
        try {
          mkdirSync(entry, createMode); // mkdir never follows a symlink in the last step: EEXIST
        } catch (made) {
          if ((made as NodeJS.ErrnoException).code !== 'EEXIST') throw unwritableFrom(shown, 'create the folder', made);
        }
        continue;
      }
      // O_NOFOLLOW|O_DIRECTORY on a symlink fails with ENOTDIR (Linux) or ELOOP: tell which it is.
      if (code === 'ENOTDIR' || code === 'ELOOP') throw isSymlink(entry) ? plantedSymlink(shown) : notAFolder(shown);
      throw unwritableFrom(shown, 'open the folder', error);
    }
  }
}

/** Whether `entry` is a symlink itself (false when it is missing). */
export function isSymlink(entry: string): boolean {
  try {
    return lstatSync(entry).isSymbolicLink();
  } catch {
    return false;
  }
}

/** Refuse a folder or file another user (but `owner`, when given) owns: they could swap what is in it at any time. */
export function checkOwned(stats: Stats, shown: string, owner?: number): void {
  const me = process.getuid?.();
  if (me !== undefined && stats.uid !== me && stats.uid !== owner) throw notOwned(shown, stats.uid, me);
}

function handle(fd: number, real: string, shown: string, viaProc: boolean, ancestors: string[]): RealDir {
  return {
    real,
    shown,
    fd,
    viaProc,
    at: (name) => (viaProc ? procPath(fd, name) : path.join(real, name)),
    stillThere: () => (viaProc ? procTarget(fd) === real : sameByPath(fd, real, ancestors)),
    close: () => closeSync(fd),
  };
}

/** Where the kernel says the open file `fd` is now, or undefined. */
export function procTarget(fd: number): string | undefined {
  try {
    return readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    return undefined;
  }
}

// Elsewhere: the open folder is the one at `real`, and no step above it became a symlink.
function sameByPath(fd: number, real: string, ancestors: string[]): boolean {
  try {
    const opened = fstatSync(fd);
    const there = lstatSync(real);
    if (!there.isDirectory() || there.ino !== opened.ino || there.dev !== opened.dev) return false;
    return ancestors.every((folder) => lstatSync(folder).isDirectory());
  } catch {
    return false;
  }
}
