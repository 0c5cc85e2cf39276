import { readdirSync } from 'node:fs';
import path from 'node:path';
import { readRole } from './role.js';

/**
 * The board's roles that run fenced (`sandbox:`), by the role files in roles/ (lower-case `*.md`).
 * When any role is fenced, nothing in the board folder may be run outside a fence by the
 * supervisor: a fenced agent can write it (git hooks, hook scripts, an unfenced role's program).
 * roles/ itself is read-only inside the fence, so this answer cannot be changed by a fenced agent.
 */
export function fencedRoles(boardDir: string): string[] {
  return roleNames(boardDir).filter((name) => {
    const check = readRole(boardDir, name);
    return (check.role ?? check.draft)?.sandbox !== undefined;
  });
}

/** The names of the board's role files (lower-case `*.md` in roles/, without .md); none without roles/. */
export function roleNames(boardDir: string): string[] {
  try {
    return readdirSync(path.join(boardDir, 'roles'))
      .filter((file) => file.endsWith('.md') && file === file.toLowerCase())
      .map((file) => file.slice(0, -3));
  } catch {
    return []; // no roles folder: no role at all, fenced or not
  }
}
