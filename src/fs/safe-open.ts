import { closeSync, constants, fstatSync, lstatSync, openSync, rmSync, type Stats } from 'node:fs';
import path from 'node:path';
import {
  checkOwned,
  isSymlink,
  openRealDir,
  procTarget,
  splitRelative,
  type RealDir,
  type WalkOptions,
} from './real-dir.js';
import {
  badRelativePath,
  hardLinked,
  movedWhileOpening,
  notARegularFile,
  plantedSymlink,
  unwritableFrom,
} from './refuse.js';

/**
 * Opening a file inside the board for writing so that nothing planted there redirects the
 * write: never through a symlink (O_NOFOLLOW; O_EXCL for a new file, which refuses any
 * existing name, dangling links included), never into a FIFO or a device, never into a file
 * with a second name, and only where we meant, checked on the open descriptor afterwards.
 */

/** Options of an open: how to walk the folders, and the new file's mode. */
export interface OpenOptions extends WalkOptions {
  /** Mode of a file created (default 0o644, less the umask). */
  mode?: number;
  /** Open for reading too (to look at the last byte of a log). */
  readable?: boolean;
}

/** How a file is opened: created new (fails if the name exists), or appended to, created if missing. */
export type OpenHow = 'exclusive' | 'append';

const { O_WRONLY, O_RDWR, O_CREAT, O_EXCL, O_APPEND, O_NOFOLLOW, O_NONBLOCK } = constants;

/**
 * Create `relative` (its folders too) as a new file; refuses any existing name, a symlink above all. Returns the fd.
 */
export function openExclusive(boardDir: string, relative: string, options: OpenOptions = {}): number {
  return openInBoard(boardDir, relative, 'exclusive', options);
}

/** Open `relative` for appending, creating it (and its folders) if missing; refuses a symlink. Returns the fd. */
export function openAppend(boardDir: string, relative: string, options: OpenOptions = {}): number {
  return openInBoard(boardDir, relative, 'append', options);
}

function openInBoard(boardDir: string, relative: string, how: OpenHow, options: OpenOptions): number {
  const dir = openRealDir(boardDir, path.posix.dirname(relative), { ...options, create: true });
  try {
    return openFileIn(dir, path.posix.basename(relative), how, options);
  } finally {
    dir.close();
  }
}

/** Open the file `name` of an open real folder; see openExclusive and openAppend. */
export function openFileIn(dir: RealDir, name: string, how: OpenHow, options: OpenOptions = {}): number {
  if (splitRelative(name).length !== 1) throw badRelativePath(name);
  const shown = path.join(dir.shown, name);
  const access = options.readable === true ? O_RDWR : O_WRONLY;
  const mode = options.mode ?? 0o644;
  let fd: number;
  let created = true;
  try {
    fd = openSync(dir.at(name), access | O_CREAT | O_EXCL | O_NOFOLLOW | (how === 'append' ? O_APPEND : 0), mode);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw unwritableFrom(shown, 'create', error);
    if (how === 'exclusive')
      throw isSymlink(dir.at(name)) ? plantedSymlink(shown) : unwritableFrom(shown, 'create', error);
    created = false;
    fd = openExisting(dir.at(name), access, shown);
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw notARegularFile(shown);
    if (stats.nlink > 1) throw hardLinked(shown, stats.nlink);
    checkOwned(stats, shown);
    checkWhere(fd, stats, dir, name, shown);
  } catch (error) {
    forget(fd, created ? dir.at(name) : undefined);
    throw error;
  }
  return fd;
}

// O_NONBLOCK: opening a planted FIFO for writing must fail (ENXIO) or return, never block;
// it changes nothing for a regular file.
function openExisting(entry: string, access: number, shown: string): number {
  try {
    return openSync(entry, access | O_APPEND | O_NOFOLLOW | O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP' || (code === 'EMLINK' && isSymlink(entry))) throw plantedSymlink(shown);
    if (code === 'ENXIO' || code === 'EISDIR') throw notARegularFile(shown);
    throw unwritableFrom(shown, 'open', error);
  }
}

/**
 * The file open as `fd` is `name` in the folder we meant, still inside the board: on Linux
 * the kernel's own path of the descriptor (a folder moved meanwhile shows there, even one
 * moved within the board); elsewhere the inode at the path and a re-check of every folder
 * on the way.
 */
function checkWhere(fd: number, opened: Stats, dir: RealDir, name: string, shown: string): void {
  const meant = path.join(dir.real, name);
  if (dir.viaProc) {
    const actual = procTarget(fd) ?? 'an unknown place';
    if (actual !== meant) throw movedWhileOpening(shown, actual);
    return;
  }
  let there: Stats | undefined;
  try {
    there = lstatSync(meant);
  } catch {
    there = undefined;
  }
  if (!dir.stillThere() || there === undefined || there.ino !== opened.ino || there.dev !== opened.dev)
    throw movedWhileOpening(shown, 'another place');
}

// Close a refused file; remove it if we created it, and only if the name still holds it.
function forget(fd: number, createdAt: string | undefined): void {
  try {
    if (createdAt !== undefined) {
      const opened = fstatSync(fd);
      const there = lstatSync(createdAt);
      if (there.ino === opened.ino && there.dev === opened.dev) rmSync(createdAt);
    }
  } catch {
    // gone already, or no longer ours to remove
  } finally {
    closeSync(fd);
  }
}
