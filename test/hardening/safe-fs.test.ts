import {
  closeSync,
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  symlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { ExitCode, InternalError, UnwritableError } from '../../src/errors.js';
import { openAppend, openExclusive, openFileIn } from '../../src/fs/safe-open.js';
import { ensureRealDir, openRealDir } from '../../src/fs/real-dir.js';
import { replaceFileAtomic, tempName } from '../../src/fs/replace.js';
import { tempDir } from '../helpers.js';

const LOG = '.kanban-supervisor/runs/r1/000001-implementor-1.out';
const LEVELS = ['.kanban-supervisor', '.kanban-supervisor/runs', '.kanban-supervisor/runs/r1'];

/** A board folder inside a root, and beside it an "outside" folder holding a file a planted link aims at. */
function world() {
  const root = tempDir();
  const board = path.join(root, 'board');
  const outside = path.join(root, 'outside');
  mkdirSync(board);
  mkdirSync(outside);
  const secret = path.join(outside, 'authorized_keys');
  writeFileSync(secret, 'ssh-ed25519 AAAA precious\n');
  return { root, board, outside, secret };
}

/** What the outside folder holds, with each file's bytes and mtime: must be the same after every refusal. */
function snapshot(dir: string): string {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .map((entry) => {
      const file = path.join(entry.parentPath, entry.name);
      const stats = lstatSync(file);
      return `${path.relative(dir, file)} ${stats.mtimeMs} ${stats.isFile() ? readFileSync(file, 'utf8') : '(folder)'}`;
    })
    .sort()
    .join('\n');
}

/** Call `fn`, expect an UnwritableError (exit 73) of one line matching `message`. */
function refused(fn: () => unknown, message: RegExp): UnwritableError {
  let caught: unknown;
  try {
    fn();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(UnwritableError);
  const error = caught as UnwritableError;
  expect(error.exitCode).toBe(ExitCode.unwritable);
  expect(error.message).toMatch(message);
  expect(error.message).not.toContain('\n');
  return error;
}

const write = (fd: number, text: string) => {
  writeSync(fd, text);
  closeSync(fd);
};

const WALKS: Array<[string, boolean]> = [
  ['through open folders (Linux)', true],
  ['by path (the portable way)', false],
];

describe.each(WALKS.filter(([, viaProc]) => !viaProc || process.platform === 'linux'))(
  'safe writes in the board folder, %s',
  (_, viaProc) => {
    const options = { viaProc };

    it('creates the state folders as real folders of ours and the file in them', () => {
      const { board } = world();
      write(openExclusive(board, LOG, options), 'hello\n');
      expect(readFileSync(path.join(board, LOG), 'utf8')).toBe('hello\n');
      expect(statSync(path.join(board, '.kanban-supervisor')).mode & 0o777).toBe(0o700);
      for (const level of LEVELS) expect(lstatSync(path.join(board, level)).isDirectory()).toBe(true);
      write(openAppend(board, '.kanban-supervisor/events.jsonl', options), 'a\n');
      write(openAppend(board, '.kanban-supervisor/events.jsonl', options), 'b\n');
      expect(readFileSync(path.join(board, '.kanban-supervisor/events.jsonl'), 'utf8')).toBe('a\nb\n');
    });

    it.each(LEVELS)('refuses a symlink planted as the folder %s, writing nothing where it points', (level) => {
      const { board, outside } = world();
      mkdirSync(path.join(board, path.dirname(level)), { recursive: true });
      symlinkSync(outside, path.join(board, level));
      const before = snapshot(outside);
      const message = new RegExp(
        `^${path.join(board, level).replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} is a symlink \\(planted in the ` +
          `board folder\\?\\); refusing to write through it\\. Remove it and run again\\.$`,
      );
      refused(() => openExclusive(board, LOG, options), message);
      refused(() => openAppend(board, LOG, options), message);
      refused(() => ensureRealDir(board, '.kanban-supervisor/runs/r1', options), message);
      refused(() => replaceFileAtomic(board, `${level}/x.json`, '{}', options), /is a symlink/);
      expect(snapshot(outside)).toBe(before);
    });

    it(
      'refuses a symlink planted as the file itself, to a file outside or dangling, ' +
        'and leaves its target as it was',
      () => {
        const { board, outside, secret } = world();
        ensureRealDir(board, '.kanban-supervisor/runs/r1', options);
        symlinkSync(secret, path.join(board, LOG));
        symlinkSync(path.join(outside, 'new-file'), path.join(board, '.kanban-supervisor/events.jsonl'));
        symlinkSync(secret, path.join(board, 'supervisor.log.md'));
        const before = snapshot(outside);
        refused(() => openExclusive(board, LOG, options), /000001-implementor-1\.out is a symlink/);
        refused(() => openAppend(board, LOG, options), /000001-implementor-1\.out is a symlink/);
        refused(() => openAppend(board, '.kanban-supervisor/events.jsonl', options), /events\.jsonl is a symlink/);
        refused(() => openAppend(board, 'supervisor.log.md', options), /supervisor\.log\.md is a symlink/);
        expect(snapshot(outside)).toBe(before);
        expect(existsSync(path.join(outside, 'new-file'))).toBe(false);
      },
    );

    it('refuses to replace a board file that is a symlink, and replaces a real one keeping its mode', () => {
      const { board, secret } = world();
      writeFileSync(path.join(board, 'kanban.yaml'), 'old\n', { mode: 0o640 });
      replaceFileAtomic(board, 'kanban.yaml', 'new\n', options);
      expect(readFileSync(path.join(board, 'kanban.yaml'), 'utf8')).toBe('new\n');
      expect(statSync(path.join(board, 'kanban.yaml')).mode & 0o777).toBe(0o640);
      expect(readdirSync(board)).toEqual(['kanban.yaml']); // no temp file left
      symlinkSync(secret, path.join(board, 'board.yaml'));
      const before = readFileSync(secret, 'utf8');
      refused(() => replaceFileAtomic(board, 'board.yaml', 'pwned\n', options), /board\.yaml is a symlink/);
      expect(readFileSync(secret, 'utf8')).toBe(before);
      expect(lstatSync(path.join(board, 'board.yaml')).isSymbolicLink()).toBe(true);
      expect(readdirSync(board).sort()).toEqual(['board.yaml', 'kanban.yaml']);
    });

    it('catches a folder swapped for a symlink between the check and the open, and removes what it created', () => {
      const { board, outside } = world();
      const dir = openRealDir(board, '.kanban-supervisor/runs/r1', { ...options, create: true });
      // The agent's move, timed as badly as can be: after the folders were checked.
      renameSync(path.join(board, '.kanban-supervisor/runs/r1'), path.join(board, '.kanban-supervisor/runs/moved'));
      symlinkSync(outside, path.join(board, '.kanban-supervisor/runs/r1'));
      const before = snapshot(outside);
      try {
        refused(
          () => openFileIn(dir, 'x.out', 'exclusive'),
          /x\.out ended up at .* while it was opened \(a folder on its way was moved or swapped for a symlink\)/,
        );
      } finally {
        dir.close();
      }
      expect(snapshot(outside)).toBe(before);
      expect(readdirSync(path.join(board, '.kanban-supervisor/runs/moved'))).toEqual([]);
    });

    it('refuses a hard link to a file outside, a FIFO, and a file where a folder must be', () => {
      const { board, secret } = world();
      ensureRealDir(board, '.kanban-supervisor', options);
      linkSync(secret, path.join(board, 'supervisor.log.md'));
      const before = readFileSync(secret, 'utf8');
      refused(() => openAppend(board, 'supervisor.log.md', options), /supervisor\.log\.md has 2 hard links/);
      expect(readFileSync(secret, 'utf8')).toBe(before);
      execFileSync('mkfifo', [path.join(board, '.kanban-supervisor/events.jsonl')]);
      refused(
        () => openAppend(board, '.kanban-supervisor/events.jsonl', options),
        /events\.jsonl is not a regular file/,
      );
      writeFileSync(path.join(board, '.kanban-supervisor/runs'), 'a file');
      refused(() => openExclusive(board, LOG, options), /\.kanban-supervisor\/runs is not a folder/);
    });

    it('refuses to create a file whose name exists, and paths that would leave the board', () => {
      const { board } = world();
      write(openExclusive(board, LOG, options), 'first');
      refused(
        () => openExclusive(board, LOG, options),
        /^Cannot create .*000001-implementor-1\.out: it already exists/,
      );
      expect(readFileSync(path.join(board, LOG), 'utf8')).toBe('first');
      for (const bad of ['../x', '/etc/passwd', 'a//b', 'a/./b', '.kanban-supervisor/../../x'])
        expect(() => openAppend(board, bad, options)).toThrow(InternalError);
      const dir = openRealDir(board, '.kanban-supervisor', options);
      try {
        for (const bad of ['..', 'runs/../../x', ''])
          expect(() => openFileIn(dir, bad, 'append')).toThrow(InternalError);
      } finally {
        dir.close();
      }
    });

    it.skipIf(process.getuid?.() !== 0)('refuses a state folder owned by another user', () => {
      const { board } = world();
      mkdirSync(path.join(board, '.kanban-supervisor'));
      execFileSync('chown', ['12345', path.join(board, '.kanban-supervisor')]);
      refused(
        () => openExclusive(board, LOG, options),
        /\.kanban-supervisor is owned by uid 12345, not by you \(uid 0\)/,
      );
    });
  },
);

describe('temp files for an atomic replace', () => {
  it('get a name nobody can plant in advance, with the pid for cleaning up after a crash', () => {
    const names = new Set(Array.from({ length: 50 }, () => tempName('kanban.yaml')));
    expect(names.size).toBe(50);
    for (const name of names)
      expect(name).toMatch(new RegExp(`^\\.kanban\\.yaml\\.${process.pid}-[0-9a-f]{12}\\.tmp$`));
  });
});
