import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';
import { InputError } from '../errors.js';
import type { Invocation } from './invocation.js';

/**
 * Check that the agent's command exists and is executable before the first attempt:
 * a missing program is a configuration error (exit 2), not something retries can fix.
 */
export function checkCommand(invocation: Pick<Invocation, 'file' | 'cwd' | 'env' | 'roleFile' | 'role'>): void {
  const { file, cwd, env, roleFile } = invocation;
  const fix = `Install it, or fix \`command:\` in ${roleFile}.`;
  if (file.includes('/')) {
    const absolute = path.resolve(cwd, file);
    const problem = executableProblem(absolute);
    if (problem) throw new InputError(`${roleFile}: the ${invocation.role} command "${file}" ${problem} (looked in ${cwd}). ${fix}`);
    return;
  }
  const dirs = (env.PATH ?? '').split(path.delimiter).filter(Boolean);
  let lastProblem = 'was not found on PATH';
  for (const dir of dirs) {
    const problem = executableProblem(path.join(dir, file));
    if (!problem) return;
    if (problem !== 'does not exist') lastProblem = `was found in ${dir} but ${problem}`;
  }
  throw new InputError(`${roleFile}: the ${invocation.role} command "${file}" ${lastProblem}. ${fix}`);
}

function executableProblem(file: string): string | null {
  try {
    if (!statSync(file).isFile()) return 'is not a file';
    accessSync(file, constants.X_OK);
    return null;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EACCES' ? 'is not executable (chmod +x it)' : 'does not exist';
  }
}
