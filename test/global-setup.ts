import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { reachableByAll } from './hardening/fenced-users.js';
import { watchLeftovers } from './leftovers.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * Before any test: check the Node the tests run the CLI with, build dist/ if it is stale, and
 * give the run a temp folder of its own. After the last test: fail the run if anything is left
 * in that folder or any process of the run still runs.
 */
export default function setup(): () => Promise<void> {
  checkNode();
  buildIfStale();
  const { check } = watchLeftovers();
  const restore = openToFencedUsers();
  return async () => {
    await check();
    restore();
  };
}

// Run by root, the fence tests run the CLI as nobody and their agents as the board folder's owner:
// both must pass through the folders above Node and the checkout (the CLI, the fixtures), which a checkout in a
// `mktemp -d` folder (0700) closes. Opened once for the whole run and put back after it: opened and
// put back by each test file, one file's end would close them under another still running.
function openToFencedUsers(): () => void {
  if (process.getuid?.() !== 0) return () => {};
  return reachableByAll([process.execPath, path.join(ROOT, 'dist', 'cli.js')]);
}

// The tests run the CLI (and their agents) with the `node` on PATH: say which line this run
// tests, and stop at once on a Node the package does not support instead of failing every test.
function checkNode(): void {
  const version = execFileSync('node', ['-p', 'process.version'], { encoding: 'utf8' }).trim();
  if (Number(/^v(\d+)/.exec(version)?.[1]) < 22) {
    throw new Error(
      `The tests run kanban-supervisor with the node on PATH, which is ${version}; it needs Node 22 or later. ` +
        `Run them through npm (npm test, npm run test:fast) or npx vitest: ` +
        `they put the project's own Node 22 (node_modules/.bin) first on PATH.`,
    );
  }
  process.stderr.write(`Testing on Node ${version}\n`);
}

// The tests run the built program, as users do: a dist/ older than its sources would test old
// code, so `vitest run` on its own builds first when anything under src/ or schemas/ is newer.
function buildIfStale(): void {
  const built = modified(path.join(ROOT, 'dist', 'cli.js'));
  const newest = Math.max(...['src', 'schemas'].flatMap((dir) => files(path.join(ROOT, dir))).map(modified));
  if (built >= newest) return;
  process.stderr.write('dist/ is older than src/: running npm run build first\n');
  execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit' });
}

function modified(file: string): number {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return 0;
  }
}

// Generated files are written by the build itself, so they never count as sources.
function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'generated' ? [] : files(full);
    return entry.isFile() ? [full] : [];
  });
}
