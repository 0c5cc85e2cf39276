import { chmodSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';

/**
 * Who a fenced agent is on the host: the board folder's owner, never root. So where root runs the
 * supervisor, the boards of the fence tests belong to this ordinary user (no passwd entry), as a
 * checkout mounted into a container does.
 */
export const OWNER = 4242;

/**
 * Let every user pass through the folders above Node, the CLI and the fixtures (search only, not
 * read): a fresh clone or a Node put in a `mktemp -d` folder (0700), or under /root, is out of an
 * ordinary user's reach — the supervisor's when run as nobody, the fenced agent's when run as the
 * board folder's owner. Returns how to put the modes back.
 */
export function reachableByAll(files: string[]): () => void {
  const changed = new Map<string, number>();
  for (const file of files) {
    for (let dir = path.dirname(realpathSync(file)); !changed.has(dir); dir = path.dirname(dir)) {
      const mode = statSync(dir).mode & 0o7777;
      if ((mode & 0o001) === 0) {
        changed.set(dir, mode);
        chmodSync(dir, mode | 0o001);
      }
      if (dir === '/') break;
    }
  }
  return () => changed.forEach((mode, dir) => chmodSync(dir, mode));
}
