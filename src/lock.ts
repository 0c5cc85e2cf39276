import { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import lockfile from 'proper-lockfile';
import { BoardLockedError } from './errors.js';

/** Who holds a board's run lock, recorded beside it. */
export interface LockOwner {
  pid: number;
  host: string;
  since: string;
  /** Inode of the lock folder this owner created: ties the record to that lock, not a later one. */
  lockIno?: number;
}

/** The lock folder proper-lockfile creates for a board. */
export function lockPath(boardFile: string): string {
  return `${boardFile}.lock`;
}

function ownerFile(boardFile: string): string {
  return path.join(path.dirname(boardFile), '.kanban-supervisor', 'lock-owner.json');
}

/** The recorded owner of a board's lock, if any. */
export function readLockOwner(boardFile: string): LockOwner | null {
  try {
    return JSON.parse(readFileSync(ownerFile(boardFile), 'utf8')) as LockOwner;
  } catch {
    return null;
  }
}

/** Whether a process with this pid exists on this host. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

// proper-lockfile refreshes the lock's mtime every UPDATE ms; a lock not refreshed for
// STALE ms is considered abandoned (its owner crashed, possibly on another host).
const STALE_MS = 20_000;
const UPDATE_MS = 5_000;

/**
 * Take the board's run lock (SPEC §5). A lock whose owner is gone from this host is taken
 * over at once; a live owner, or one on another host until the lock goes stale, is refused
 * with exit 75. `onLost` is called if the lock is compromised mid-run.
 */
export async function acquireBoardLock(boardFile: string, onLost: (error: BoardLockedError) => void): Promise<() => Promise<void>> {
  const name = path.basename(boardFile);
  const options = {
    stale: STALE_MS,
    update: UPDATE_MS,
    realpath: false,
    retries: 0,
    onCompromised: (error: Error) =>
      onLost(new BoardLockedError(`${name}: the run lock ${path.basename(lockPath(boardFile))} was lost (${error.message}); stopped to keep two supervisors off one board. Check that no other supervisor runs on it, then run again.`)),
  };
  let release: () => Promise<void>;
  try {
    release = await lockfile.lock(boardFile, options);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ELOCKED') throw error;
    const owner = readLockOwner(boardFile);
    if (!owner || owner.host !== hostname() || isAlive(owner.pid) || owner.lockIno !== inode(lockPath(boardFile))) throw lockedError(boardFile, owner);
    // The owner crashed on this host: its lock is ours at once, not after the stale period.
    // Renaming (atomic) rather than deleting means two supervisors taking over together
    // cannot both succeed: the second rename finds nothing.
    const aside = `${lockPath(boardFile)}.stale-${process.pid}`;
    try {
      renameSync(lockPath(boardFile), aside);
    } catch {
      throw lockedError(boardFile, readLockOwner(boardFile));
    }
    rmSync(aside, { recursive: true, force: true });
    try {
      release = await lockfile.lock(boardFile, options);
    } catch {
      throw lockedError(boardFile, readLockOwner(boardFile));
    }
  }
  const owner: LockOwner = { pid: process.pid, host: hostname(), since: new Date().toISOString(), lockIno: inode(lockPath(boardFile)) };
  mkdirSync(path.dirname(ownerFile(boardFile)), { recursive: true });
  writeFileSync(ownerFile(boardFile), `${JSON.stringify(owner)}\n`);
  return async () => {
    rmSync(ownerFile(boardFile), { force: true });
    await release().catch(() => undefined);
  };
}

function inode(file: string): number | undefined {
  try {
    return statSync(file).ino;
  } catch {
    return undefined;
  }
}

function lockedError(boardFile: string, owner: LockOwner | null): BoardLockedError {
  const name = path.basename(boardFile);
  const who = owner ? `pid ${owner.pid} on ${owner.host}, since ${owner.since}` : 'owner unknown';
  return new BoardLockedError(
    `${name} is locked by another kanban-supervisor (${who}). Wait for it to finish or stop it; if no supervisor runs, remove ${path.basename(lockPath(boardFile))} (it also goes stale after ${STALE_MS / 1000}s).`,
  );
}
