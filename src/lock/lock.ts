import { readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { BoardLockedError } from '../errors.js';
import { isAlive } from '../util/process.js';
import { ownerState, probePid, selfIdentity, type ProcessIdentity } from './process-identity.js';

/** Who holds a board's run lock, recorded inside the lock folder: its process identity, and what it runs. */
export interface LockOwner extends ProcessIdentity {
  since: string;
  /** The board file the owner runs, as it named it. */
  board: string;
}

// proper-lockfile refreshes the lock folder's mtime every UPDATE_MS. A lock held on another
// host is abandoned once not refreshed for STALE_MS; one whose owner we can look up, as soon as
// its owner is gone; one in another container of this kernel (its pids are not ours to look up),
// once not refreshed for UNSEEN_STALE_MS, which is waited for (one kernel, one clock: no skew to
// allow for); one without an owner record, NO_OWNER_MS after it was made (its maker died in between).
const UPDATE_MS = 2_000;
export const STALE_MS = 20_000;
export const UNSEEN_STALE_MS = 10_000;
const NO_OWNER_MS = 3_000;

/** The lock folder of a board folder's state folder: one supervisor per board folder. */
export function lockPath(stateDir: string): string {
  return path.join(stateDir, 'run.lock');
}

/** The recorded owner of the lock, if any. */
export function readLockOwner(stateDir: string): LockOwner | null {
  return ownerIn(lockPath(stateDir));
}

/**
 * Take the run lock of a board folder (SPEC §5; the protocol is in README.md here). The state
 * folder is given by its real path, so every name of the board — a symlink, `..`, a hard link —
 * meets the same lock. A live owner is refused with exit 75; an abandoned lock is taken over.
 * `onLost` is called if the lock is taken away mid-run. Returns the release.
 */
export async function acquireBoardLock(
  stateDir: string,
  board: string,
  onLost: (error: BoardLockedError) => void,
): Promise<() => Promise<void>> {
  const lock = lockPath(stateDir);
  const options = {
    lockfilePath: lock,
    realpath: false,
    retries: 0,
    // Staleness is judged here (with the owner record), never by removing a folder that holds one.
    stale: 24 * 3_600_000,
    update: UPDATE_MS,
    onCompromised: (error: Error) =>
      onLost(
        new BoardLockedError(
          `${board}: the run lock .kanban-supervisor/run.lock was lost (${error.message}); ` +
            `stopped to keep two supervisors off one board. ` +
            `Check that no other supervisor runs on it, then run again.`,
        ),
      ),
  };
  let release: () => Promise<void>;
  // Loaded here: `status` reads the owner without it.
  const { default: lockfile } = await import('proper-lockfile');
  try {
    release = await lockfile.lock(stateDir, options);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ELOCKED') throw error;
    await ownerOrAge(stateDir);
    await setAsideAbandoned(stateDir, board);
    release = await lockfile.lock(stateDir, options).catch(() => {
      throw lockedError(board, readLockOwner(stateDir));
    });
  }
  const owner: LockOwner = { ...selfIdentity(), since: new Date().toISOString(), board };
  // Writing the record changes the folder's mtime, which proper-lockfile checks is still the one it
  // set (else it reports the lock compromised): it is put back.
  const { atime, mtime } = statSync(lock);
  writeFileSync(path.join(lock, 'owner.json'), `${JSON.stringify(owner)}\n`, { flag: 'wx', mode: 0o600 });
  utimesSync(lock, atime, mtime);
  removeDeadAsides(stateDir);
  return async () => {
    rmSync(path.join(lock, 'owner.json'), { force: true });
    await release().catch(() => undefined); // lost meanwhile: not ours to remove
  };
}

// Whether a lock folder has been given up by its owner, and who that was. Never ourselves: a
// record naming our own pid on our boot and pid namespace is a dead predecessor's (pid 1 again).
async function abandoned(stateDir: string): Promise<{ abandoned: boolean; owner: LockOwner | null }> {
  const owner = readLockOwner(stateDir);
  const mtime = mtimeOf(lockPath(stateDir));
  if (mtime === undefined) return { abandoned: false, owner }; // released meanwhile
  const age = Date.now() - mtime;
  if (!owner) return { abandoned: age > NO_OWNER_MS, owner };
  const state = ownerState(owner, selfIdentity(), probePid);
  if (state === 'elsewhere') return { abandoned: age > STALE_MS, owner };
  if (state === 'unseen') return { abandoned: await silentFor(lockPath(stateDir), mtime, UNSEEN_STALE_MS), owner };
  return { abandoned: state === 'dead', owner };
}

// Wait until the lock has not been refreshed for `ms` (its owner is dead: true) or is refreshed
// (alive: false). A live owner refreshes every UPDATE_MS, so this answers within that when it lives.
async function silentFor(lock: string, seen: number, ms: number): Promise<boolean> {
  for (;;) {
    const mtime = mtimeOf(lock);
    if (mtime !== seen) return false; // refreshed, or released meanwhile
    const left = seen + ms - Date.now();
    if (left < 0) return true;
    await new Promise((resolve) => setTimeout(resolve, Math.min(250, left + 1)));
  }
}

function mtimeOf(file: string): number | undefined {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return undefined;
  }
}

// A lock without an owner record may be one being taken right now (its maker is between the
// mkdir and writing the record) or one whose maker died in between: wait until the record
// appears or the lock is old enough to tell.
async function ownerOrAge(stateDir: string): Promise<void> {
  for (;;) {
    if (readLockOwner(stateDir)) return;
    let age: number;
    try {
      age = Date.now() - statSync(lockPath(stateDir)).mtimeMs;
    } catch {
      return; // released meanwhile
    }
    if (age > NO_OWNER_MS) return;
    await new Promise((resolve) => setTimeout(resolve, Math.min(100, NO_OWNER_MS - age + 1)));
  }
}

// Move an abandoned lock out of the way, or throw the locked error. Renaming (atomic) rather
// than deleting means two supervisors taking over at once cannot both succeed; checking what
// was moved catches a lock made in between, which is put back.
async function setAsideAbandoned(stateDir: string, board: string): Promise<void> {
  const lock = lockPath(stateDir);
  const seen = await abandoned(stateDir);
  if (!seen.abandoned) throw lockedError(board, seen.owner);
  const aside = `${lock}.taken-${process.pid}`;
  try {
    renameSync(lock, aside);
  } catch {
    throw lockedError(board, readLockOwner(stateDir));
  }
  if (JSON.stringify(ownerIn(aside)) !== JSON.stringify(seen.owner)) {
    try {
      renameSync(aside, lock);
    } catch {
      rmSync(aside, { recursive: true, force: true }); // its owner sees the lock gone and stops (exit 75)
    }
    throw lockedError(board, readLockOwner(stateDir));
  }
  rmSync(aside, { recursive: true, force: true });
}

// A supervisor killed while taking a lock over leaves the lock it set aside.
function removeDeadAsides(stateDir: string): void {
  for (const entry of readdirSync(stateDir)) {
    const pid = Number(/^run\.lock\.taken-(\d+)$/.exec(entry)?.[1]);
    if (pid > 0 && pid !== process.pid && !isAlive(pid))
      rmSync(path.join(stateDir, entry), { recursive: true, force: true });
  }
}

function ownerIn(lockDir: string): LockOwner | null {
  try {
    return JSON.parse(readFileSync(path.join(lockDir, 'owner.json'), 'utf8')) as LockOwner;
  } catch {
    return null;
  }
}

function lockedError(board: string, owner: LockOwner | null): BoardLockedError {
  const who = owner
    ? `pid ${owner.pid} on ${owner.host}, since ${owner.since}, running ${owner.board}`
    : 'owner unknown';
  return new BoardLockedError(
    `${board} is locked by another kanban-supervisor (${who}). Wait for it to finish or stop it; ` +
      `if none runs, remove .kanban-supervisor/run.lock ` +
      `(a lock from another host also goes stale after ${STALE_MS / 1000}s).`,
  );
}
