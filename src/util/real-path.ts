import { realpathSync } from 'node:fs';
import path from 'node:path';

/** A path with its links resolved; as given (made absolute) when it does not exist. */
export function realOr(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    return path.resolve(file);
  }
}

/** Whether `file` is `dir` or lies in it (both absolute, normalised). */
export function isWithin(file: string, dir: string): boolean {
  return file === dir || file.startsWith(dir.endsWith('/') ? dir : `${dir}/`);
}
