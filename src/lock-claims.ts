import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { procStat } from './agent/group.js';

/**
 * Claims: a supervisor about to take a board's lock first writes a small file naming
 * itself (`.kanban-supervisor/lock-claim-<pid>-<nonce>.json`), and removes it once it
 * holds the lock and its owner record is written, or once it gave up. A supervisor
 * killed between creating the lock folder and writing the record thus leaves a dead
 * claim, which tells the next run the lock is abandoned rather than owned by nobody known.
 */

/** One supervisor's claim on a board's lock. */
export interface LockClaim {
  /** The claim's file (absolute path). */
  file: string;
  pid: number;
  host: string;
}

const PREFIX = 'lock-claim-';

/** The board's state folder (`.kanban-supervisor` beside kanban.yaml). */
export function stateDir(boardFile: string): string {
  return path.join(path.dirname(boardFile), '.kanban-supervisor');
}

/** Whether a process with this pid runs on this host (a zombie, dead but not yet reaped, does not). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  // A killed supervisor's pid lingers as a zombie until init reaps it, which can take seconds.
  return procStat(pid)?.state !== 'Z';
}

/** Leave this process's claim; written whole (temp + rename) so a reader never sees half of one. */
export function writeClaim(boardFile: string): LockClaim {
  const dir = stateDir(boardFile);
  mkdirSync(dir, { recursive: true });
  const claim: LockClaim = { file: path.join(dir, `${PREFIX}${process.pid}-${nonce()}.json`), pid: process.pid, host: hostname() };
  const temp = `${claim.file}.tmp`;
  writeFileSync(temp, `${JSON.stringify({ pid: claim.pid, host: claim.host, since: new Date().toISOString() })}\n`);
  renameSync(temp, claim.file);
  return claim;
}

// Keeps two claims by one pid (on two hosts sharing the folder) apart. Math.random is enough for
// that, and unlike node:crypto (about 2 ms of start-up to load) costs nothing.
function nonce(): string {
  return Math.floor(Math.random() * 2 ** 32).toString(16).padStart(8, '0');
}

/** Remove this process's claim. */
export function removeClaim(claim: LockClaim): void {
  rmSync(claim.file, { force: true });
}

/** Every claim left on the board, by live or dead supervisors. */
export function readClaims(boardFile: string): LockClaim[] {
  const dir = stateDir(boardFile);
  const claims: LockClaim[] = [];
  for (const entry of list(dir)) {
    if (!entry.startsWith(PREFIX) || !entry.endsWith('.json')) continue;
    const file = path.join(dir, entry);
    try {
      const { pid, host } = JSON.parse(readFileSync(file, 'utf8')) as { pid: number; host: string };
      claims.push({ file, pid, host });
    } catch {
      // Removed between listing and reading: its owner is done with it.
    }
  }
  return claims;
}

/**
 * Remove what supervisors that died on this host left in `dir`: every entry whose name
 * matches `pattern`, whose first group is the dead supervisor's pid (only the lock holder calls this).
 */
export function removeDeadLeftovers(dir: string, pattern: RegExp): void {
  for (const entry of list(dir)) {
    const pid = Number(pattern.exec(entry)?.[1]);
    if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && !isAlive(pid)) rmSync(path.join(dir, entry), { recursive: true, force: true });
  }
}

/** Remove the claims (and half-written claims) of supervisors that died on this host. */
export function removeDeadClaims(boardFile: string): void {
  removeDeadLeftovers(stateDir(boardFile), new RegExp(`^${PREFIX}(\\d+)-[0-9a-f]+\\.json(\\.tmp)?$`));
}

function list(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
