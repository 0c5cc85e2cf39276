import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';
import { readProcInfo } from './proc-stat.js';
import { isWithin, realOr } from './real-path.js';

/** Whether a process with this pid runs on this host; a zombie (dead, not yet reaped) does not. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  // A killed process lingers as a zombie until its parent (or init) reaps it, which can take seconds.
  return readProcInfo(pid)?.state !== 'Z';
}

/** Why `file` cannot be run: not there, not a file, not executable; null when it can. */
export function executableProblem(file: string): string | null {
  try {
    if (!statSync(file).isFile()) return 'is not a file';
    accessSync(file, constants.X_OK);
    return null;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EACCES' ? 'is not executable (chmod +x it)' : 'does not exist';
  }
}

/**
 * Find a program as a shell would: a name with a slash is a path from `cwd`, else each PATH
 * entry is tried (relative entries from `cwd`). Returns the file, or why it was not found.
 */
export function findProgram(name: string, env: NodeJS.ProcessEnv, cwd: string): { file: string } | { problem: string } {
  if (name.includes('/')) {
    const file = path.resolve(cwd, name);
    const problem = executableProblem(file);
    return problem ? { problem: `${problem} (looked in ${cwd})` } : { file };
  }
  let problem = 'was not found on PATH';
  for (const dir of (env.PATH ?? '').split(path.delimiter).filter(Boolean)) {
    const file = path.resolve(cwd, dir, name);
    const found = executableProblem(file);
    if (!found) return { file };
    if (found !== 'does not exist') problem = `was found in ${dir} but ${found}`;
  }
  return { problem };
}

/**
 * git as found on PATH, never inside the board folder (where an agent could have put one of its
 * own); undefined when none.
 */
export function findGit(env: Readonly<Record<string, string | undefined>>, boardDir: string): string | undefined {
  const found = findProgram('git', { PATH: outsidePath(env.PATH, boardDir) }, '/');
  if (!('file' in found)) return undefined;
  const file = realOr(found.file);
  return isWithin(file, realOr(boardDir)) ? undefined : file;
}

/** PATH without its relative entries and those that are (or lead into) the board folder. */
export function outsidePath(value: string | undefined, boardDir: string): string {
  const board = realOr(boardDir);
  return (value ?? '')
    .split(path.delimiter)
    .filter((dir) => path.isAbsolute(dir) && !isWithin(realOr(dir), board))
    .join(path.delimiter);
}
