import { closeSync, constants, openSync, readdirSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import { ensureRealDir } from '../fs/real-dir.js';
import { unwritableFrom } from '../fs/refuse.js';
import { isAlive } from '../util/process.js';

/**
 * Check, before any agent runs, that the supervisor can write what a step writes: its state
 * folder (a real folder of ours, created if missing) and kanban.yaml itself (a read-only or
 * immutable board is found now, not after both agents have run). Throws an UnwritableError
 * (exit 73) naming the path and the cause.
 */
export function checkWritable(file: string): void {
  ensureRealDir(path.dirname(file), '.kanban-supervisor');
  let fd: number;
  try {
    fd = openSync(file, constants.O_WRONLY | constants.O_APPEND | constants.O_NOFOLLOW);
  } catch (error) {
    throw unwritableFrom(file, 'write', error);
  }
  closeSync(fd);
}

/** Remove the temp files of board writes by supervisors that died mid-write (call only while holding the lock). */
export function removeDeadTemps(file: string): void {
  const dir = path.dirname(file);
  const pattern = new RegExp(
    `^\\.${path.basename(file).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\.(\\d+)-[0-9a-f]+\\.tmp$`,
  );
  for (const entry of readdirSync(dir)) {
    const pid = Number(pattern.exec(entry)?.[1]);
    if (!(pid > 0 && pid !== process.pid && !isAlive(pid))) continue;
    try {
      // Only a file is ours to remove: a folder of that name (an agent's, a person's) is left as it is.
      unlinkSync(path.join(dir, entry));
    } catch {
      // Gone already, a folder (EISDIR), or not ours to remove: a temp name never stops a run.
    }
  }
}
