import { createHash } from 'node:crypto';
import {
  closeSync,
  constants,
  fstatSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  type BigIntStats,
} from 'node:fs';
import path from 'node:path';
import { resolveAllInBoard } from '../board/paths.js';
import { parseYaml } from '../board/yaml.js';

/** What a resident supervisor watches: files and the folders that hold them, board-relative. */
export interface WatchSet {
  files: string[];
  dirs: string[];
}

/** How each watched file was last seen: its content's hash (null: no such file), and its stat to skip re-reading it. */
export type Snapshot = ReadonlyMap<string, Seen | null>;

interface Seen {
  hash: string;
  stat: string;
}

// A task file can grow to hundreds of MB of work log: past this size its stat stands for its content.
const HASH_MAX_BYTES = 8 * 1024 * 1024;

/**
 * The files whose edit by a person wakes a resident supervisor: kanban.yaml, every task it lists
 * (inside the board) and every role file (roles/*.md), with their folders. Read from the board
 * as it is now, even when it does not validate: whatever it lists is worth watching.
 */
export function watchSet(boardFile: string): WatchSet {
  const dir = path.dirname(boardFile);
  const files = new Set([path.basename(boardFile)]);
  const listed = listedTasks(boardFile);
  resolveAllInBoard(dir, listed).forEach((where, i) => where.ok && files.add(path.normalize(listed[i] as string)));
  try {
    for (const name of readdirSync(path.join(dir, 'roles')))
      if (name.endsWith('.md')) files.add(path.join('roles', name));
  } catch {
    // no roles/ folder yet: validate says so; the board folder's watch sees it appear
  }
  const dirs = new Set(['.', 'roles', ...[...files].map((file) => path.dirname(file))]);
  return { files: [...files].sort(), dirs: [...dirs].sort() };
}

/**
 * Look at each file of the set: unchanged stats keep the hash they had in `previous`; anything else is read and hashed.
 */
export function snapshot(boardDir: string, files: readonly string[], previous?: Snapshot): Snapshot {
  const seen = new Map<string, Seen | null>();
  for (const file of files) seen.set(file, look(path.join(boardDir, file), previous?.get(file)));
  return seen;
}

/**
 * A baseline for another set of files: the files it already had keep how they were seen then
 * (a change since still counts); files new to the set are taken as they are now.
 */
export function rebase(boardDir: string, files: readonly string[], baseline: Snapshot): Snapshot {
  const added = snapshot(
    boardDir,
    files.filter((file) => !baseline.has(file)),
  );
  return new Map(
    files.map((file) => [file, baseline.has(file) ? (baseline.get(file) ?? null) : (added.get(file) ?? null)]),
  );
}

/** The files whose content differs between two snapshots (appeared, vanished or changed), sorted. */
export function changedFiles(before: Snapshot, after: Snapshot): string[] {
  const names = new Set([...before.keys(), ...after.keys()]);
  return [...names].filter((name) => (before.get(name)?.hash ?? null) !== (after.get(name)?.hash ?? null)).sort();
}

function look(file: string, previous: Seen | null | undefined): Seen | null {
  let fd: number;
  try {
    // O_NONBLOCK: a FIFO planted at a task's name must not hang the wait.
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    const stats = fstatSync(fd, { bigint: true });
    if (!stats.isFile()) return { hash: 'not a file', stat: '' };
    const stat = statKey(stats);
    if (previous && previous.stat === stat) return previous;
    if (stats.size > HASH_MAX_BYTES) return { hash: stat, stat };
    return {
      hash: createHash('sha1')
        .update(readAll(fd, Number(stats.size)))
        .digest('hex'),
      stat,
    };
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

function statKey(stats: BigIntStats): string {
  return `${stats.ino}:${stats.size}:${stats.mtimeNs}:${stats.ctimeNs}`;
}

function readAll(fd: number, size: number): Buffer {
  const buffer = Buffer.alloc(size);
  let got = 0;
  while (got < size) {
    const n = readSync(fd, buffer, got, size - got, got);
    if (n === 0) break;
    got += n;
  }
  return buffer.subarray(0, got);
}

function listedTasks(boardFile: string): string[] {
  try {
    const parsed = parseYaml(readFileSync(boardFile, 'utf8'));
    const board = (parsed.ok && parsed.value && typeof parsed.value === 'object' ? parsed.value : {}) as {
      tasks?: unknown;
      current?: unknown;
    };
    const tasks = Array.isArray(board.tasks) ? board.tasks : [];
    return [...tasks, board.current].filter((task): task is string => typeof task === 'string');
  } catch {
    return [];
  }
}
