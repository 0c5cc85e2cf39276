import { existsSync, rmSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers.js';
import { outside } from './places.js';

describe('init never writes through a symlink in the folder it fills', () => {
  it.each([
    [
      'a roles/ folder linked outside',
      'roles',
      'dir',
      new RegExp(
        String.raw`^kanban-supervisor: .*\/roles is a symlink \(planted in the board folder\?\); ` +
          String.raw`refusing to write through it\. Remove it and run again\.$`,
      ),
    ],
    ['a tasks/ folder linked outside', 'tasks', 'dir', /\/tasks is a symlink/],
    [
      'a .gitignore linked to a file outside',
      '.gitignore',
      'file',
      /\/\.gitignore is a symlink \(planted in the board folder\?\)/,
    ],
  ])('%s is refused (exit 73) before anything is written', async (_, name, kind, message) => {
    const target = outside();
    const before = target.untouched();
    const board = tempDir();
    symlinkSync(kind === 'dir' ? target.dir : target.file, path.join(board, name));
    const result = await runCli(['init', board, '--agent', 'shell']);
    expect(result.exitCode).toBe(73);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr.trim()).toMatch(message);
    expect(target.untouched()).toEqual(before);
    expect(existsSync(path.join(board, 'kanban.yaml'))).toBe(false);
  });

  it('--force replaces the board files but refuses a role file linked outside, writing nothing', async () => {
    const target = outside();
    const before = target.untouched();
    const board = tempDir();
    expect((await runCli(['init', board, '--agent', 'shell'])).exitCode).toBe(0);
    const yaml = readFileSync(path.join(board, 'kanban.yaml'), 'utf8');
    writeFileSync(path.join(board, 'kanban.yaml'), `${yaml}# mine\n`);
    const role = path.join(board, 'roles/architect.md');
    rmSync(role);
    symlinkSync(target.file, role);
    const result = await runCli(['init', board, '--agent', 'shell', '--force']);
    expect(result.exitCode).toBe(73);
    expect(result.stderr.trim()).toMatch(/roles\/architect\.md is a symlink/);
    expect(target.untouched()).toEqual(before);
    expect(readFileSync(path.join(board, 'kanban.yaml'), 'utf8')).toBe(`${yaml}# mine\n`);
  });

  it('still writes a whole board, and appends to an existing .gitignore, when nothing is planted', async () => {
    const board = tempDir();
    writeFileSync(path.join(board, '.gitignore'), 'node_modules/\n');
    const result = await runCli(['init', board, '--agent', 'shell']);
    expect(result.exitCode).toBe(0);
    expect(readdirSync(path.join(board, 'roles')).sort()).toEqual(['architect.md', 'implementor.md', 'manager.md']);
    expect(readFileSync(path.join(board, '.gitignore'), 'utf8')).toMatch(
      /^node_modules\/\n# kanban-supervisor run output.*\n\.kanban-supervisor\/\nsupervisor\.log\.md\n$/,
    );
  });
});
