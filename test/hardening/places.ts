import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { tempDir } from '../helpers.js';

/**
 * Whether this process may mount a small tmpfs of its own, so a test can fill it or make it
 * read-only. Mounting needs root (CAP_SYS_ADMIN), as CI has; elsewhere such tests are skipped.
 */
export function mountable(): boolean {
  const at = tempDir('ks-mount-probe-');
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', at], { stdio: 'ignore' });
    execFileSync('umount', [at], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** A file and a folder outside the board, which nothing may write to; `untouched()` is how they are now. */
export function outside() {
  const root = tempDir('ks-outside-');
  const file = path.join(root, 'authorized_keys');
  const dir = path.join(root, 'folder');
  writeFileSync(file, 'ssh-ed25519 AAAA... the owner\n');
  mkdirSync(dir);
  return {
    file,
    dir,
    untouched: () => ({ text: readFileSync(file, 'utf8'), mtime: statSync(file).mtimeMs, entries: readdirSync(dir) }),
  };
}
