import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { expandPath } from './role-sandbox.js';
import { isWithin, realOr } from '../util/real-path.js';
import { fencedRoles } from './fenced-roles.js';
import { readRole, roleFilePath } from './role.js';

/** Where the fenced agents of a board can write, as real paths, and what to call each place in a message. */
export interface FencedWrites {
  /** The fenced role files, for messages: `roles/implementor.md`. */
  roles: string[];
  places: Array<{ dir: string; name: string }>;
}

/**
 * Where the fenced agents of the board in `boardDir` can write: the board folder and the paths
 * their roles declare writable (`sandbox: write:`); undefined when no role is fenced. Nothing
 * found there may be run unfenced by the supervisor (SPEC §5c, "Fenced").
 */
export function fencedWrites(boardDir: string, env: NodeJS.ProcessEnv): FencedWrites | undefined {
  const names = fencedRoles(boardDir);
  if (names.length === 0) return undefined;
  const roles = names.map((name) => roleFilePath(name));
  const places = [{ dir: realOr(boardDir), name: 'the board folder' }];
  for (const name of names) {
    const check = readRole(boardDir, name);
    for (const written of (check.role ?? check.draft)?.sandbox?.write ?? []) {
      const file = expandPath(written, boardDir, env.HOME ?? homedir());
      if (file) places.push({ dir: realOr(file), name: `${written} (sandbox: write of ${roleFilePath(name)})` });
    }
  }
  return { roles, places };
}

/**
 * Where anything the board's agents run could have written lies: the board folder (every agent
 * of the board writes there, fenced or not) and the paths its fenced roles declare writable.
 */
export function boardWrites(boardDir: string, env: NodeJS.ProcessEnv): FencedWrites {
  return fencedWrites(boardDir, env) ?? { roles: [], places: [{ dir: realOr(boardDir), name: 'the board folder' }] };
}

/**
 * Where `file` lies among the places of `writes`, symlinks resolved — the file itself when it
 * exists, else its folder, so a file an agent creates later counts; undefined when elsewhere.
 */
export function writablePlace(file: string, writes: FencedWrites): string | undefined {
  // The file itself when it exists, else its folder's real path with its name (created later).
  const real = existsSync(file) ? realOr(file) : path.join(realOr(path.dirname(file)), path.basename(file));
  return writes.places.find(({ dir }) => isWithin(real, dir))?.name;
}
