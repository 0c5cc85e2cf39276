import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { inertCall } from '../../src/git/inert.js';
import { findGit, outsidePath } from '../../src/util/process.js';
import { configFiles } from '../../src/git/planted.js';
import { quotedPaths } from '../../src/git/porcelain.js';
import { HASHED_MAX, pathState } from '../../src/git/tree-state.js';
import { tempDir } from '../helpers.js';

const bounds = {
  cwd: '/work/board',
  env: { PATH: '/usr/bin:/work/board/bin:bin', HOME: '/home/me' },
  timeoutMs: 1000,
  graceMs: 100,
  tag: 't',
};

describe('how the run starts git', () => {
  it(
    'names the repository found at the start and turns off fsmonitor and automatic maintenance; ' +
      'hooks and PATH as they are when no role is fenced',
    () => {
      const call = inertCall(bounds, '/work/board', '/usr/bin/git', { top: '/work', gitDir: '/work/.git' }, false);
      expect(call.program).toBe('/usr/bin/git');
      expect(call.cwd).toBe('/work');
      expect(call.options).toEqual([
        '--git-dir=/work/.git',
        '--work-tree=/work',
        ...['core.fsmonitor=false', 'core.untrackedCache=false', 'maintenance.auto=false'].flatMap((c) => ['-c', c]),
      ]);
      expect(call.env.PATH).toBe('/usr/bin:/work/board/bin:bin');
    },
  );

  it('runs no hook and drops PATH entries in the board folder (or relative) when a role is fenced', () => {
    const call = inertCall(bounds, '/work/board', '/usr/bin/git', undefined, true);
    expect(call.cwd).toBe('/work/board');
    expect(call.options.slice(-2)).toEqual(['-c', 'core.hooksPath=/dev/null']);
    expect(call.options.some((o) => o.startsWith('--git-dir'))).toBe(false);
    expect(call.env.PATH).toBe('/usr/bin');
    expect(call.env.GIT_LITERAL_PATHSPECS).toBe('1');
  });

  it('finds git outside the board folder only, a link into it included', () => {
    const board = tempDir('ks-board-');
    mkdirSync(path.join(board, 'bin'));
    writeFileSync(path.join(board, 'bin/git'), '#!/bin/sh\n', { mode: 0o755 });
    const elsewhere = tempDir('ks-path-');
    symlinkSync(path.join(board, 'bin'), path.join(elsewhere, 'linked'));
    const PATH = [path.join(board, 'bin'), path.join(elsewhere, 'linked'), 'bin', '/usr/bin'].join(':');
    expect(outsidePath(PATH, board)).toBe('/usr/bin');
    expect(findGit({ PATH }, board)).toBe('/usr/bin/git');
    expect(findGit({ PATH: path.join(board, 'bin') }, board)).toBeUndefined();
  });
});

describe('git configuration files', () => {
  it('lists each file read and each include it names, resolved as git does; the command line is no file', () => {
    const out = [
      'file:/home/me/.gitconfig\0user.name\nMe',
      'file:.git/config\0include.path\n../team.gitconfig',
      'file:.git/config\0includeif.gitdir:~/work/.path\n~/work.gitconfig',
      'command line:\0core.fsmonitor\nfalse',
      '',
    ].join('\0');
    expect(configFiles(out, '/work', { HOME: '/home/me' })).toEqual([
      // Read once they exist, which an agent could see to when HOME is in the board folder.
      '/home/me/.gitconfig',
      '/home/me/.config/git/config',
      '/home/me/.gitconfig',
      '/work/.git/config',
      '/work/team.gitconfig',
      '/work/.git/config',
      '/home/me/work.gitconfig',
    ]);
    expect(configFiles('', '/work', { HOME: '/home/me', GIT_CONFIG_GLOBAL: 'team.gitconfig' })).toEqual([
      '/work/team.gitconfig',
    ]);
    expect(configFiles('', '/work', { HOME: '/h', XDG_CONFIG_HOME: '/x' })).toEqual(['/h/.gitconfig', '/x/git/config']);
  });
});

describe('what a changed path holds', () => {
  it('leaves a small file to be hashed, notes a larger one by lstat alone, and never opens a link or a folder', () => {
    const dir = tempDir('ks-tree-');
    writeFileSync(path.join(dir, 'small'), 'x');
    writeFileSync(path.join(dir, 'edge'), '');
    truncateSync(path.join(dir, 'edge'), HASHED_MAX);
    writeFileSync(path.join(dir, 'big'), '');
    truncateSync(path.join(dir, 'big'), HASHED_MAX + 1); // sparse: no disk
    symlinkSync('/etc/passwd', path.join(dir, 'link'));
    mkdirSync(path.join(dir, 'sub'));
    expect(pathState(dir, 'small')).toMatchObject({ state: 'file:-', hashed: true });
    expect(pathState(dir, 'edge').hashed).toBe(true);
    expect(pathState(dir, 'big')).toMatchObject({
      hashed: false,
      state: expect.stringMatching(/^file:-:\d+:67108865:\d+:\d+$/),
    });
    expect(pathState(dir, 'link')).toMatchObject({
      state: `link:${Buffer.from('/etc/passwd').toString('hex')}`,
      hashed: false,
    });
    expect(pathState(dir, 'sub').state).toBe('dir');
    expect(pathState(dir, 'gone').state).toBe('gone');
  });

  it('hands git hash-object --stdin-paths any name but NUL, byte for byte', () => {
    const dir = tempDir('ks-names-');
    const names = [
      'line\nbreak',
      'quote"d',
      'back\\slash',
      'cr\r',
      '"leading',
      'tab\there',
      Buffer.from([0x66, 0xff]).toString('latin1'),
    ];
    // Byte strings, as git's paths are kept: the last name is not UTF-8.
    names.forEach((name, i) =>
      writeFileSync(Buffer.concat([Buffer.from(`${dir}/`), Buffer.from(name, 'latin1')]), `${i}`),
    );
    const ids = execFileSync('git', ['hash-object', '--no-filters', '--stdin-paths'], {
      cwd: dir,
      input: quotedPaths(names),
    })
      .toString()
      .trim()
      .split('\n');
    const one = (i: number) =>
      execFileSync('git', ['hash-object', '--stdin'], { input: `${i}` })
        .toString()
        .trim();
    expect(ids).toEqual(names.map((_, i) => one(i)));
  });
});
