import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

// The tests run the built program, as users do: a dist/ older than its sources would test old
// code, so `vitest run` on its own builds first when anything under src/ or schemas/ is newer.
export default function buildIfStale(): void {
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
