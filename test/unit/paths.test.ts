import { lstatSync, mkdirSync, realpathSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveAllInBoard, resolveInBoard } from '../../src/board/paths.js';
import { tempDir } from '../helpers.js';

// What resolveAllInBoard must agree with: one resolveInBoard and one stat per path.
function oneByOne(dir: string, relative: string) {
  const where = resolveInBoard(dir, relative);
  if (!where.ok) return where;
  let file = false;
  try {
    file = statSync(where.absolute).isFile();
  } catch {
    // missing
  }
  return { ...where, file };
}

// resolveAllInBoard's answers without the real paths its listings give (checked by `realsTrue`).
function all(dir: string, paths: string[]) {
  return resolveAllInBoard(dir, paths).map((where) => {
    if (!('real' in where)) return where;
    const { real: _real, ...rest } = where;
    return rest;
  });
}

// Every real path a listing gave is the real path of a regular file (not a link) at that path.
function realsTrue(dir: string, paths: string[]): number {
  const given = resolveAllInBoard(dir, paths).filter((where) => where.ok && where.real !== undefined);
  for (const where of given) {
    if (!where.ok) continue;
    expect(where.real).toBe(realpathSync(where.absolute));
    expect(lstatSync(where.absolute).isFile()).toBe(true);
  }
  return given.length;
}

describe('resolveAllInBoard', () => {
  it('answers like resolveInBoard plus a stat for every path, in a folder big enough to be listed', () => {
    const root = tempDir();
    const dir = path.join(root, 'board');
    mkdirSync(path.join(dir, 'tasks', 'sub'), { recursive: true });
    mkdirSync(path.join(root, 'elsewhere'));
    writeFileSync(path.join(root, 'outside.md'), 'not yours\n');
    writeFileSync(path.join(root, 'elsewhere', 'x.md'), 'not yours\n');
    const paths: string[] = [];
    for (let i = 0; i < 40; i++) {
      writeFileSync(path.join(dir, 'tasks', `${i}.md`), `task ${i}\n`);
      paths.push(`tasks/${i}.md`);
    }
    symlinkSync(path.join(root, 'outside.md'), path.join(dir, 'tasks', 'escape.md'));
    symlinkSync(path.join(dir, 'tasks', '0.md'), path.join(dir, 'tasks', 'inside-link.md'));
    symlinkSync(path.join(dir, 'nowhere.md'), path.join(dir, 'tasks', 'dangling.md'));
    symlinkSync(path.join(root, 'elsewhere'), path.join(dir, 'out-folder'));
    symlinkSync(path.join(dir, 'tasks'), path.join(dir, 'in-folder'));
    paths.push(
      'tasks/escape.md',
      'tasks/inside-link.md',
      'tasks/dangling.md',
      'tasks/missing.md',
      'tasks/sub',
      'tasks/./1.md',
      'tasks/sub/../2.md',
      'tasks/3.md/',
      'out-folder/x.md',
      'in-folder/4.md',
      '../outside.md',
      path.join(root, 'outside.md'),
      '',
      'tasks/\u0000.md',
      'missing-folder/a.md',
    );
    // Enough paths through each folder that every one of them is listed, not stat'ed.
    for (let i = 0; i < 40; i++) paths.push(`out-folder/x${i}.md`, `in-folder/${i}.md`);
    expect(all(dir, paths)).toEqual(paths.map((p) => oneByOne(dir, p)));
    // tasks/0..39.md; tasks/./1.md, tasks/sub/../2.md, tasks/3.md/; in-folder/4.md and in-folder/0..39.md
    expect(realsTrue(dir, paths)).toBe(40 + 3 + 41);
  });

  it('answers like resolveInBoard for a few paths', () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'a.md'), 'a\n');
    const paths = ['a.md', 'b.md', '../a.md', '.'];
    expect(all(dir, paths)).toEqual(paths.map((p) => oneByOne(dir, p)));
  });

  it(
    'sees a task file removed, added or turned into a folder between two checks of the same list, ' +
      'however recently the folder was listed',
    () => {
      for (const age of [0, 60_000]) {
        const dir = tempDir();
        mkdirSync(path.join(dir, 'tasks'));
        const paths = Array.from({ length: 40 }, (_, i) => `tasks/${i}.md`);
        for (const p of paths.slice(1)) writeFileSync(path.join(dir, p), 'task\n');
        // A folder last changed a minute ago is one whose listing may be kept.
        const old = new Date(Date.now() - age);
        utimesSync(path.join(dir, 'tasks'), old, old);
        const answer = (p: string) => resolveAllInBoard(dir, paths)[paths.indexOf(p)];
        expect(all(dir, paths)).toEqual(paths.map((p) => oneByOne(dir, p)));
        expect(all(dir, paths)).toEqual(paths.map((p) => oneByOne(dir, p)));
        rmSync(path.join(dir, 'tasks/5.md'));
        expect(answer('tasks/5.md')).toMatchObject({ ok: true, file: false });
        writeFileSync(path.join(dir, 'tasks/0.md'), 'new\n');
        expect(answer('tasks/0.md')).toMatchObject({ ok: true, file: true });
        rmSync(path.join(dir, 'tasks/7.md'));
        mkdirSync(path.join(dir, 'tasks/7.md'));
        expect(answer('tasks/7.md')).toMatchObject({ ok: true, file: false });
        expect(all(dir, paths)).toEqual(paths.map((p) => oneByOne(dir, p)));
      }
    },
  );
});

describe('resolveInBoard on paper', () => {
  it('agrees with resolving against the folder, for every path made of up to four tricky segments', () => {
    const base = tempDir();
    const segments = ['.', '..', 'a', '..a', 'a..', '...', '', 'tasks'];
    const paths: string[] = [];
    const grow = (prefix: string, depth: number) => {
      for (const segment of segments) {
        const next = prefix === '' ? segment : `${prefix}/${segment}`;
        paths.push(next, `${next}/`);
        if (depth < 3) grow(next, depth + 1);
      }
    };
    grow('', 0);
    for (const relative of paths.filter((p) => p !== '' && !p.startsWith('/'))) {
      const absolute = path.resolve(base, relative);
      const rel = path.relative(base, absolute);
      const inside = rel !== '' && rel !== '..' && !rel.startsWith('../');
      expect(resolveInBoard(base, relative), relative).toEqual(
        inside ? { ok: true, absolute } : { ok: false, reason: 'leaves the board folder' },
      );
    }
  });
});
