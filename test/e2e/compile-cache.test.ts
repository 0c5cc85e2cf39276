import { execFileSync } from 'node:child_process';
import { chownSync, cpSync, existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, tempDir } from '../helpers.js';

const NOBODY = 65534;

/** A copy of the built program (dist/ and package.json) in a temp folder, owned by `uid`. */
function install(uid: number): string {
  const dir = tempDir();
  const skipCache = (from: string) => path.basename(from) !== '.compile-cache';
  cpSync(path.join(ROOT, 'dist'), path.join(dir, 'dist'), { recursive: true, filter: skipCache });
  cpSync(path.join(ROOT, 'package.json'), path.join(dir, 'package.json'));
  execFileSync('chown', ['-R', String(uid), dir]);
  chownSync(dir, 0, 0);
  return dir;
}

describe("Node's compile cache", () => {
  it.skipIf(process.getuid?.() !== 0)(
    'is kept beside the program, in dist/.compile-cache, and only by the user who owns it: ' +
      'root running a user’s install writes none',
    () => {
      const { NODE_COMPILE_CACHE: _, NODE_DISABLE_COMPILE_CACHE: __, ...env } = process.env;
      const own = install(0);
      expect(execFileSync('node', [path.join(own, 'dist', 'cli.js'), '--version'], { env, encoding: 'utf8' })).toMatch(
        /^\d+\.\d+\.\d+\n$/,
      );
      expect(existsSync(path.join(own, 'dist', '.compile-cache'))).toBe(true);

      const users = install(NOBODY);
      execFileSync('node', [path.join(users, 'dist', 'cli.js'), '--version'], { env });
      expect(existsSync(path.join(users, 'dist', '.compile-cache'))).toBe(false);
    },
  );
});
