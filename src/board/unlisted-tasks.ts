import { readdirSync } from 'node:fs';
import path from 'node:path';
import { normalPath, resolveInBoard } from './paths.js';
import { parseFrontMatter } from './front-matter.js';
import { readRegular } from '../fs/safe-read.js';

// How many unlisted files one warning names; the rest are counted.
const NAMED = 5;

/**
 * The warning for Markdown files in `tasks/` (and in every other folder the board's tasks are in,
 * but the board folder itself) that neither `tasks:` nor `current:` lists: no run reaches them,
 * and nothing else would say so. A file whose front-matter says `status: done` (any case: a
 * Backlog.md task set Done) is finished work, not forgotten. One folder listing each; undefined
 * when there are none.
 */
export function unlistedTasksWarning(boardDir: string, listed: readonly string[]): string | undefined {
  const known = new Set(listed.map(normalPath));
  const folders = new Set(['tasks', ...[...known].map((task) => path.posix.dirname(task))]);
  folders.delete('.');
  const unlisted = [...folders].flatMap((folder) =>
    markdownIn(boardDir, folder)
      .map((name) => `${folder}/${name}`)
      .filter((task) => !known.has(task) && !saysDone(boardDir, task)),
  );
  const [first] = unlisted;
  if (first === undefined) return undefined;
  if (unlisted.length === 1)
    return (
      `${first} is a task file not listed in tasks:, so no run reaches it (the Manager picks only from tasks:). ` +
      `List it under tasks: ("  - ${first}"), or move it out of ${path.posix.dirname(first)}/ if it is no task.`
    );
  const more = unlisted.length > NAMED ? ` and ${unlisted.length - NAMED} more` : '';
  return (
    `${unlisted.length} task files are not listed in tasks:, so no run reaches them (the Manager picks only ` +
    `from tasks:): ${unlisted.slice(0, NAMED).join(', ')}${more}. List each under tasks: (e.g. "  - ${first}"), ` +
    'or move those that are no tasks out of their folder.'
  );
}

// The visible Markdown files of a board folder, in name order; none when it is missing or leads outside the board.
function markdownIn(boardDir: string, folder: string): string[] {
  const where = resolveInBoard(boardDir, folder);
  if (!where.ok) return [];
  try {
    return readdirSync(where.absolute, { withFileTypes: true })
      .filter((entry) => entry.isFile() && entry.name.endsWith('.md') && !entry.name.startsWith('.'))
      .map((entry) => entry.name)
      .sort();
  } catch {
    return [];
  }
}

// Only the head is read: the front-matter is at the top, a work log may follow for megabytes.
function saysDone(boardDir: string, task: string): boolean {
  try {
    const parsed = parseFrontMatter(readRegular(path.join(boardDir, task), task, { maxBytes: 16 * 1024 }) ?? '');
    return parsed.ok && typeof parsed.data.status === 'string' && parsed.data.status.trim().toLowerCase() === 'done';
  } catch {
    return false;
  }
}
