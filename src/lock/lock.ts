import { readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import lockfile from 'proper-lockfile';
import { writeFileAtomic } from '../board/atomic.js';
import { BoardLockedError, InputError } from '../errors.js';
import { isAlive, readClaims, removeClaim, removeDeadClaims, removeDeadLeftovers, stateDir, writeClaim, type LockClaim } from '../lock-claims.js';

export { isAlive } from '../lock-claims.js';

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
  return path.join(stateDir(boardFile), 'lock-owner.json');
}

/** The recorded owner of a board's lock, if any. */
export function readLockOwner(boardFile: string): LockOwner | null {
  try {
    return JSON.parse(readFileSync(ownerFile(boardFile), 'utf8')) as LockOwner;
  } catch {
    return null;
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
 *
 * Before touching the lock a supervisor leaves a claim (lock-claims.ts), and removes it
 * only once the owner record of its new lock is written. So a lock without a matching
 * record belongs to a claimant: alive, it is refused; dead, it crashed in between.
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
  const claim = unwritable(boardFile, () => writeClaim(boardFile));
  let aside: string | undefined;
  try {
    let release: () => Promise<void>;
    try {
      release = await lockfile.lock(boardFile, options);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ELOCKED') return unwritable(boardFile, () => { throw error; });
      aside = setAsideAbandoned(boardFile, claim);
      release = await lockfile.lock(boardFile, options).catch(() => {
        throw lockedError(boardFile, currentOwner(boardFile));
      });
    }
    const owner: LockOwner = { pid: process.pid, host: hostname(), since: new Date().toISOString(), lockIno: inode(lockPath(boardFile)) };
    writeFileAtomic(ownerFile(boardFile), `${JSON.stringify(owner)}\n`);
    removeLeftovers(boardFile);
    return async () => {
      // After a lost lock the record may be the next owner's: leave theirs alone.
      if (JSON.stringify(readLockOwner(boardFile)) === JSON.stringify(owner)) rmSync(ownerFile(boardFile), { force: true });
      await release().catch(() => undefined);
    };
  } finally {
    // Kept until the new lock exists, so the old lock's inode cannot be reused meanwhile.
    if (aside) rmSync(aside, { recursive: true, force: true });
    removeClaim(claim);
  }
}

/**
 * Move a lock whose owner is gone from this host out of the way and return where it went;
 * throw the locked error for any lock that may have a live owner. Claims are read before
 * the owner record: an owner writes its record before dropping its claim, so one of the
 * two reads always sees it.
 */
function setAsideAbandoned(boardFile: string, ours: LockClaim): string | undefined {
  const claims = readClaims(boardFile).filter((c) => c.file !== ours.file);
  const owner = readLockOwner(boardFile);
  const lock = lockPath(boardFile);
  const ino = inode(lock);
  const here = hostname();
  if (ino === undefined) return undefined; // released meanwhile: just try again
  const recorded = owner !== null && owner.lockIno === ino;
  const live = claims.find((c) => c.host !== here || isAlive(c.pid));
  const refuse = () => lockedError(boardFile, live ?? (recorded ? owner : null));
  if (live) throw refuse();
  if (recorded ? owner.host !== here || isAlive(owner.pid) : claims.length === 0) throw refuse();
  // Renaming (atomic) rather than deleting means two supervisors taking over together
  // cannot both succeed; checking what was moved catches a lock made in between.
  const aside = `${lock}.taken-${process.pid}`;
  try {
    renameSync(lock, aside);
  } catch {
    throw refuse();
  }
  if (inode(aside) !== ino || JSON.stringify(readLockOwner(boardFile)) !== JSON.stringify(owner)) {
    try {
      renameSync(aside, lock);
    } catch {
      rmSync(aside, { recursive: true, force: true }); // its owner sees the lock gone and stops (exit 75)
    }
    throw lockedError(boardFile, currentOwner(boardFile));
  }
  return aside;
}

// A board folder the supervisor may not write to is a setup problem (exit 2), not a bug.
function unwritable<T>(boardFile: string, action: () => T): T {
  try {
    return action();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? '';
    if (!['EACCES', 'EPERM', 'EROFS', 'ENOSPC', 'EDQUOT'].includes(code)) throw error;
    throw new InputError(`${path.dirname(boardFile)}: cannot create the run lock or .kanban-supervisor there (${code}). Run where the board folder is writable (and the disk not full).`);
  }
}

/** The owner record if it belongs to the lock folder there now. */
function currentOwner(boardFile: string): LockOwner | null {
  const owner = readLockOwner(boardFile);
  return owner && owner.lockIno === inode(lockPath(boardFile)) ? owner : null;
}

// What a supervisor killed at the wrong instant leaves: its claim, a lock it was taking over
// (`kanban.yaml.lock.taken-<pid>`) and half-written temp files (`.kanban.yaml.<pid>.tmp`).
function removeLeftovers(boardFile: string): void {
  const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const base = escape(path.basename(boardFile));
  removeDeadClaims(boardFile);
  removeDeadLeftovers(path.dirname(boardFile), new RegExp(`^(?:${base}\\.lock\\.taken-|\\.${base}\\.)(\\d+)(?:\\.tmp)?$`));
  removeDeadLeftovers(stateDir(boardFile), /^\.lock-owner\.json\.(\d+)\.tmp$/);
}

function inode(file: string): number | undefined {
  try {
    return statSync(file).ino;
  } catch {
    return undefined;
  }
}

function lockedError(boardFile: string, owner: { pid: number; host: string; since?: string } | null): BoardLockedError {
  const name = path.basename(boardFile);
  const who = owner ? `pid ${owner.pid} on ${owner.host}${owner.since ? `, since ${owner.since}` : ''}` : 'owner unknown';
  return new BoardLockedError(
    `${name} is locked by another kanban-supervisor (${who}). Wait for it to finish or stop it; if no supervisor runs, remove ${path.basename(lockPath(boardFile))} (it also goes stale after ${STALE_MS / 1000}s).`,
  );
}
