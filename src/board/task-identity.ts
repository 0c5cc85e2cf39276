import { lstatSync, readdirSync, realpathSync, type Stats } from 'node:fs';
import path from 'node:path';
import { InputError } from '../errors.js';
import { isInside } from './paths.js';
import { notATaskFile } from './read-board.js';

/**
 * A task is known by what it is, not by how its path is spelt: a symlink or a hard link to
 * kanban.yaml, a role file, the Supervisor Log or a state file is that file, and an agent
 * appending its work log there would corrupt the board. Only linked entries cost a look: a path
 * whose real path is its own spelling and that has one link is the file its text names.
 */

/** A task path that is really one of the board's own files (exit 2); `reason` says which. */
export class OwnFileError extends InputError {
  constructor(
    readonly task: string,
    readonly reason: string,
  ) {
    super(
      `${task}: the task path ${reason}. An agent's work log would be written into it: list a task file of its own.`,
    );
  }
}

/** Why the task at `absolute` (opened: `stats`; its real path `real`) is one of the board's own files, or undefined. */
export function ownFileOf(
  boardDir: string,
  boardName: string,
  absolute: string,
  real: string,
  stats: Stats,
): string | undefined {
  if (real === absolute && stats.nlink === 1) return undefined;
  const realBoard = realpathSync.native(boardDir);
  if (isInside(realBoard, real)) {
    const own = notATaskFile(path.relative(realBoard, real).split(path.sep).join('/'), boardName);
    if (own) return `leads to ${own} (${path.relative(realBoard, real)})`;
  }
  if (stats.nlink === 1) return undefined;
  const twin = ownFiles(realBoard, boardName).find((file) => sameInode(path.join(realBoard, file), stats));
  return twin === undefined ? undefined : `is a hard link to ${notATaskFile(twin, boardName) ?? twin} (${twin})`;
}

/**
 * The board's own files and folders beside its tasks, board-relative: its configuration (the
 * board file, the role files), the Supervisor Log and the supervisor's state. An agent's file
 * must not be one of them, and a fenced agent cannot change them.
 */
export function ownPaths(boardName: string): { files: string[]; folders: string[] } {
  return { files: [boardName, 'supervisor.log.md'], folders: ['roles', '.kanban-supervisor'] };
}

// The board's own files a hard link could share an inode with, board-relative.
function ownFiles(realBoard: string, boardName: string): string[] {
  const list = (folder: string) => {
    try {
      return readdirSync(path.join(realBoard, folder)).map((name) => `${folder}/${name}`);
    } catch {
      return [];
    }
  };
  const own = ownPaths(boardName);
  return [...own.files, ...own.folders.flatMap(list)];
}

function sameInode(file: string, stats: Stats): boolean {
  try {
    const there = lstatSync(file);
    return there.ino === stats.ino && there.dev === stats.dev;
  } catch {
    return false;
  }
}
