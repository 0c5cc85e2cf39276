import {
  closeSync,
  constants,
  existsSync,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readSync,
  rmSync,
  statSync,
  type Stats,
} from 'node:fs';
import path from 'node:path';
import { InputError } from '../errors.js';
import { openRealDir, type RealDir } from '../fs/real-dir.js';
import { replaceFileAtomic } from '../fs/replace.js';
import type { Account } from './account.js';

/**
 * The shared folder of account limits: one JSON file per account, written atomically, read so
 * that nothing planted there (a symlink, a FIFO, another user's file) redirects or blocks a
 * supervisor. Nothing here throws but refuseUntrusted: a failure is returned as a note for the event log.
 */

/** Where the entries live: `relative` (walked without following links) under `base`. */
export interface LimitsFolder {
  base: string;
  relative: string;
}

/** An entry's text, with the identity of the file it came from (to remove it only if unchanged). */
export interface EntryFile {
  text: string;
  dev: number;
  ino: number;
}

// An entry is a few hundred bytes; anything much larger is not one.
const MAX_BYTES = 64 * 1024;
const { O_RDONLY, O_NOFOLLOW, O_NONBLOCK } = constants;

/**
 * The folder (pure): `supervisor.shared_limits` (relative to the board folder, `~/` allowed), else
 * `$XDG_STATE_HOME/kanban-supervisor/limits`, else `~/.local/state/kanban-supervisor/limits`.
 */
export function limitsFolder(
  setting: string | null,
  boardDir: string,
  env: Readonly<Record<string, string | undefined>>,
  home: string,
): LimitsFolder {
  if (setting) return { base: path.resolve(boardDir, setting.replace(/^~(?=\/|$)/, home)), relative: '' };
  // The XDG spec: a relative XDG_STATE_HOME is invalid and ignored.
  const state = env.XDG_STATE_HOME && path.isAbsolute(env.XDG_STATE_HOME) ? env.XDG_STATE_HOME : undefined;
  return state
    ? { base: state, relative: 'kanban-supervisor/limits' }
    : { base: home, relative: '.local/state/kanban-supervisor/limits' };
}

/** The account's entry file as shown in notes. */
export function entryPath(folder: LimitsFolder, account: Account): string {
  return path.join(folder.base, folder.relative, account.file);
}

/**
 * Refuse (exit 2) a shared folder, or the account's entry in it, that someone else could have
 * written: one others can write, or another user's (root's is trusted). What is missing is
 * made later, ours alone; a symlink or a FIFO is refused by the reads themselves, with a note.
 */
export function refuseUntrusted(folder: LimitsFolder, account: Account): void {
  const parts = folder.relative ? folder.relative.split('/') : [];
  // The folder a setting names may be a link (a mounted share); the folders made under it are not.
  const places = [
    ...(parts.length === 0 ? [{ file: folder.base, stat: statSync }] : []),
    ...parts.map((_, i) => ({ file: path.join(folder.base, ...parts.slice(0, i + 1)), stat: lstatSync })),
    { file: entryPath(folder, account), stat: lstatSync },
  ];
  for (const { file, stat } of places) {
    let stats: Stats;
    try {
      stats = stat(file);
    } catch {
      return; // not made yet: nothing below it either
    }
    if (stats.isSymbolicLink()) return;
    const why = untrusted(stats);
    if (why)
      throw new InputError(
        `${file} ${why}: another user could make every supervisor of this account wait, or never wait. ` +
          `Make it yours alone (${stats.isDirectory() ? 'chmod go-w, chown' : 'remove it; it is written again'}), ` +
          'or set supervisor.shared_limits to a folder only you can write.',
      );
  }
}

function untrusted(stats: Stats): string | undefined {
  const me = process.getuid?.();
  if (me !== undefined && stats.uid !== me && stats.uid !== 0)
    return `is owned by uid ${stats.uid}, not by you (uid ${me}) nor root`;
  if ((stats.mode & 0o022) !== 0)
    return (
      `can be written by ${stats.mode & 0o002 ? 'anyone' : 'its group'} ` + `(mode ${(stats.mode & 0o777).toString(8)})`
    );
  return undefined;
}

/** Replace the account's entry with `text` (temp file + rename, no link followed); returns a note on failure. */
export function writeEntry(folder: LimitsFolder, account: Account, text: string): string | undefined {
  try {
    mkdirSync(folder.base, { recursive: true, mode: 0o700 });
    replaceFileAtomic(folder.base, path.posix.join(folder.relative, account.file), text, { mode: 0o600 });
    return undefined;
  } catch (error) {
    return `could not record the limit in ${entryPath(folder, account)}: ${(error as Error).message}`;
  }
}

/** The account's entry: undefined when there is none, a note when what is there cannot be read as one. */
export function readEntry(folder: LimitsFolder, account: Account): EntryFile | string | undefined {
  const shown = entryPath(folder, account);
  let dir: RealDir;
  try {
    if (!existsSync(path.join(folder.base, folder.relative))) return undefined;
    dir = openRealDir(folder.base, folder.relative);
  } catch (error) {
    return `${shown}: ${(error as Error).message}`;
  }
  try {
    return readRegular(dir.at(account.file), shown);
  } finally {
    dir.close();
  }
}

/** Remove the account's entry if it is still the file that was read (a fresh one written meanwhile stays). */
export function removeEntry(folder: LimitsFolder, account: Account, read: EntryFile): void {
  const file = entryPath(folder, account);
  try {
    const there = lstatSync(file);
    if (there.isFile() && there.dev === read.dev && there.ino === read.ino) rmSync(file);
  } catch {
    // gone already: another supervisor removed it
  }
}

// O_NOFOLLOW: a symlink is refused, never followed; O_NONBLOCK: a FIFO opens at once and is refused.
function readRegular(entry: string, shown: string): EntryFile | string | undefined {
  let fd: number;
  try {
    fd = openSync(entry, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (code === 'ELOOP') return `${shown} is a symlink; not followed`;
    return `${shown} cannot be read (${code ?? String(error)})`;
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) return `${shown} is not a regular file`;
    const me = process.getuid?.();
    // Another user could make every supervisor of the account wait: only our own entries count.
    if (me !== undefined && stats.uid !== me) return `${shown} is owned by uid ${stats.uid}, not by you (uid ${me})`;
    if (stats.size > MAX_BYTES) return `${shown} is ${stats.size} bytes, too large for an entry`;
    const buffer = Buffer.alloc(stats.size);
    let got = 0;
    for (let n = -1; n !== 0 && got < buffer.length; got += n) n = readSync(fd, buffer, got, buffer.length - got, got);
    return { text: buffer.subarray(0, got).toString('utf8'), dev: stats.dev, ino: stats.ino };
  } finally {
    closeSync(fd);
  }
}
