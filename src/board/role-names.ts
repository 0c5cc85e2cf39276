import { readdirSync } from 'node:fs';
import path from 'node:path';
import { closest } from '../util/suggest.js';

/** `roles/<name>.md`, lower-cased, relative to the board folder. */
export function roleFilePath(name: string): string {
  return path.join('roles', `${name.toLowerCase()}.md`);
}

/**
 * Whether two role names name the same role. A role `Name` is the file roles/name.md (SPEC §1),
 * so names are compared the way that file is found: without regard to case.
 */
export function sameRole(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

/**
 * What to say when roles/<name>.md does not exist, from the role files that do: a file of the same
 * name in other case (found by nobody: role files are lower-case; the fix is to rename it), else
 * the closest role name ("did you mean"). Empty when neither helps.
 */
export function missingRoleHint(boardDir: string, name: string): string {
  const wanted = roleFilePath(name);
  const files = roleFiles(boardDir);
  const other = files.find((file) => file !== path.basename(wanted) && file.toLowerCase() === path.basename(wanted));
  if (other)
    return (
      ` ${path.join('roles', other)} exists, ` +
      `but role files are found by their lower-case name: rename it to ${wanted}.`
    );
  const names = files
    .filter((file) => file === file.toLowerCase() && file.endsWith('.md'))
    .map((file) => capitalised(file.slice(0, -3)));
  const guess = closest(
    name.toLowerCase(),
    names.map((n) => n.toLowerCase()),
  );
  return guess === undefined ? '' : ` Did you mean ${capitalised(guess)} (${roleFilePath(guess)})?`;
}

function roleFiles(boardDir: string): string[] {
  try {
    return readdirSync(path.join(boardDir, 'roles')).filter((file) => /\.md$/i.test(file));
  } catch {
    return []; // no roles folder: nothing to suggest
  }
}

function capitalised(name: string): string {
  return name.charAt(0).toUpperCase() + name.slice(1);
}

/**
 * Front-matter keys of a task that look like a misspelt `role` (`rol:`, `Role:`, `roles:`): such a
 * key is ignored, and the task runs as the phase's role. Pure; `role` itself is never one.
 */
export function roleLookalikes(meta: Record<string, unknown>): string[] {
  return Object.keys(meta).filter((key) => key !== 'role' && looksLikeRole(key));
}

function looksLikeRole(key: string): boolean {
  const letters = key.toLowerCase().replace(/[^a-z]/g, '');
  if (letters === 'role' || letters === 'roles') return true;
  // One letter missing, extra, changed or two swapped, starting with r: rol, rloe, rolw, roel.
  return letters.startsWith('r') && editDistanceAtMostOne(letters, 'role');
}

// Within one edit of `target`, counting two swapped neighbours as one.
function editDistanceAtMostOne(word: string, target: string): boolean {
  if (word === target) return true;
  for (let i = 0; i + 1 < word.length; i++) {
    if (`${word.slice(0, i)}${word[i + 1]}${word[i]}${word.slice(i + 2)}` === target) return true;
  }
  if (Math.abs(word.length - target.length) > 1) return false;
  let i = 0;
  while (i < word.length && i < target.length && word[i] === target[i]) i++;
  return (
    word.slice(i + 1) === target.slice(i + 1) ||
    word.slice(i) === target.slice(i + 1) ||
    word.slice(i + 1) === target.slice(i)
  );
}
