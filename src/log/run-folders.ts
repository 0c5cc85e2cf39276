import { lstatSync, readdirSync, rmdirSync } from 'node:fs';
import path from 'node:path';

// `<step>-<role>-<attempt>-<task>` and its `.out` / `.err`, `.failed.` before them once judged invalid.
const ATTEMPT_FILE = /^(\d+-[^-]+-\d+-.*?)(?:\.failed)?\.(?:out|err)$/;

/** The real folders in `dir` (a symlink planted there is not a run of ours: it is never read or pruned). */
export function realFolders(dir: string): string[] {
  return listing(dir).filter((name) => lstatOf(path.join(dir, name))?.isDirectory() === true);
}

/**
 * The attempt files of a run folder grouped by attempt, oldest first, with their bytes:
 * `<base>.out`, `<base>.err` and their `.failed.` forms sort next to each other. Any other
 * file is a person's: never counted, never removed.
 */
export function attemptsIn(dir: string): Array<{ names: string[]; bytes: number }> {
  const attempts: Array<{ names: string[]; bytes: number }> = [];
  let last: string | undefined;
  for (const name of listing(dir).sort()) {
    const base = ATTEMPT_FILE.exec(name)?.[1];
    const stats = base === undefined ? undefined : lstatOf(path.join(dir, name));
    if (!stats?.isFile()) continue;
    const same = base === last ? attempts.at(-1) : undefined;
    if (same) {
      same.names.push(name);
      same.bytes += stats.size;
    } else attempts.push({ names: [name], bytes: stats.size });
    last = base;
  }
  return attempts;
}

/** Remove a run folder left empty; one still holding a person's file stays. */
export function removeEmptyDir(dir: string): void {
  try {
    rmdirSync(dir);
  } catch {
    // not empty (a person's file) or already gone
  }
}

function lstatOf(file: string) {
  try {
    return lstatSync(file);
  } catch {
    return undefined;
  }
}

function listing(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
