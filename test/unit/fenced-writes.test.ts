import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fencedWrites } from '../../src/board/fenced-writes.js';
import { writablePathEntry, writtenPart } from '../../src/board/outside-writes.js';
import { makeBoard, tempDir } from '../helpers.js';

/** A board whose Implementor is fenced with `sandbox` (written as YAML), script.sh and data.txt in it. */
function board(sandbox = 'true'): string {
  const dir = makeBoard({
    'roles/implementor.md': `---\ncommand: [agent]\nsandbox: ${sandbox}\n---\nx\n`,
    'roles/manager.md': '---\ncommand: [agent]\n---\nx\n',
    'script.sh': '#!/bin/sh\n',
    'data.txt': 'data\n',
  });
  return dir;
}

describe('where the fenced agents of a board can write', () => {
  it('is nowhere to guard when no role is fenced; the board folder and declared writable paths when one is', () => {
    const open = makeBoard({ 'roles/manager.md': '---\ncommand: [agent]\n---\nx\n' });
    expect(fencedWrites(open, {})).toBeUndefined();
    const shared = tempDir();
    const dir = board(`{ write: [${JSON.stringify(shared)}] }`);
    expect(fencedWrites(dir, {})).toEqual({
      roles: ['roles/implementor.md'],
      places: [
        { dir, name: 'the board folder' },
        { dir: shared, name: `${shared} (sandbox: write of roles/implementor.md)` },
      ],
    });
  });

  it('finds the program, or the script a shell, interpreter or launcher is given, and nothing else', () => {
    const dir = board();
    const writes = fencedWrites(dir, {})!;
    const outside = tempDir();
    symlinkSync(path.join(dir, 'script.sh'), path.join(outside, 'linked'));
    const part = (argv: string[], program = `/usr/bin/${argv[0]}`) => writtenPart(argv, program, dir, writes);
    expect(part(['./script.sh'], path.join(dir, 'script.sh'))).toEqual({
      word: './script.sh',
      what: 'program',
      place: 'the board folder',
    });
    expect(part(['linked'], path.join(outside, 'linked'))).toMatchObject({ what: 'program' });
    for (const argv of [
      ['sh', 'script.sh'],
      ['bash', '-e', './script.sh', 'data.txt'],
      ['python3.12', '-X', 'importtime', 'script.sh'],
      ['env', 'A=1', './script.sh'],
      ['deno', 'run', 'script.sh'],
      ['node', './later.mjs'], // not there yet: an agent could create it
      ['sh', path.join(outside, 'linked')],
    ])
      expect(part(argv), argv.join(' ')).toMatchObject({ what: 'script' });
    for (const argv of [
      ['node', path.join(outside, 'agent.mjs'), 'data.txt'], // the script is outside; data.txt is its data
      ['cat', 'script.sh'], // not an interpreter
      ['sh', '-c', 'echo hi'],
      ['sh', 'nothing-here'],
      ['sh', ''],
    ])
      expect(part(argv), argv.join(' ')).toBeUndefined();
  });

  it('flags a PATH entry in the board folder, through a link, or relative; not one outside', () => {
    const dir = board();
    const writes = fencedWrites(dir, {})!;
    mkdirSync(path.join(dir, 'bin'));
    writeFileSync(path.join(dir, 'bin', 'git'), '');
    const outside = tempDir();
    symlinkSync(path.join(dir, 'bin'), path.join(outside, 'bin'));
    expect(writablePathEntry(`/usr/bin:${dir}/bin`, writes)).toBe(`${dir}/bin`);
    expect(writablePathEntry(`/usr/bin:${outside}/bin`, writes)).toBe(`${outside}/bin`);
    expect(writablePathEntry('/usr/bin:node_modules/.bin', writes)).toBe('node_modules/.bin');
    expect(writablePathEntry('/usr/bin::/bin', writes)).toBe('');
    expect(writablePathEntry(`/usr/bin:${outside}`, writes)).toBeUndefined();
    expect(writablePathEntry(undefined, writes)).toBeUndefined();
  });
});
