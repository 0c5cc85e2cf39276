import { closeSync, mkdirSync, openSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { ExitCode, UnwritableError } from '../../src/errors.js';
import { LineLog } from '../../src/fs/line-log.js';
import { unwritableFrom } from '../../src/fs/refuse.js';
import { writeWhole } from '../../src/fs/replace.js';
import { ROOT, tempDir } from '../helpers.js';

const EVENTS = '.kanban-supervisor/events.jsonl';
const APPENDER = path.join(ROOT, 'test', 'fixtures', 'fs', 'append-events.mjs');

/** Lines of the events file, each parsed; a torn line fails the parse. */
function parsedLines(board: string): unknown[] {
  const text = readFileSync(path.join(board, EVENTS), 'utf8');
  expect(text.endsWith('\n')).toBe(true);
  return text
    .slice(0, -1)
    .split('\n')
    .map((line) => JSON.parse(line) as unknown);
}

describe('the events log', () => {
  it('appends whole lines, one per record, after those already there', () => {
    const board = tempDir();
    for (const round of [1, 2]) {
      const log = LineLog.open(board, EVENTS);
      log.append(JSON.stringify({ round, n: 1 }));
      log.append(JSON.stringify({ round, n: 2 }));
      log.close();
    }
    expect(parsedLines(board)).toEqual([
      { round: 1, n: 1 },
      { round: 1, n: 2 },
      { round: 2, n: 1 },
      { round: 2, n: 2 },
    ]);
  });

  it('ends a line torn by a crash before appending, so the next record stays on its own line', () => {
    const board = tempDir();
    mkdirSync(path.join(board, '.kanban-supervisor'));
    writeFileSync(path.join(board, EVENTS), '{"type":"run_started"}\n{"type":"step_sta');
    const log = LineLog.open(board, EVENTS);
    log.append('{"type":"run_started","run":"next"}');
    log.close();
    const lines = readFileSync(path.join(board, EVENTS), 'utf8').split('\n');
    expect(lines).toEqual(['{"type":"run_started"}', '{"type":"step_sta', '{"type":"run_started","run":"next"}', '']);
  });

  it('cuts a line back off when the file size limit stops it part way, leaving only whole lines', async () => {
    const board = tempDir();
    // A 1 KiB limit: some line of ~100 bytes is written short, and cut back off.
    const limited = await execa('bash', ['-c', 'ulimit -f 1; exec node "$0" "$1" 40', APPENDER, board], {
      reject: false,
    });
    expect(limited.exitCode).toBe(ExitCode.unwritable);
    expect(limited.stderr.trim()).toMatch(
      new RegExp(
        String.raw`^Cannot append to .*events\.jsonl: only \d+ of \d+ bytes were written \(the disk is ` +
          String.raw`full\?\)\. Free some space and run again\.$`,
      ),
    );
    const kept = parsedLines(board);
    const line = (step: number) => `${JSON.stringify({ type: 'step_started', step, pad: 'x'.repeat(70) })}\n`;
    expect(kept).toEqual(kept.map((_, step) => JSON.parse(line(step)) as unknown));
    const size = readFileSync(path.join(board, EVENTS)).length;
    expect(size + line(kept.length).length).toBeGreaterThan(1024); // the next line was the one that did not fit
    // Once there is room again the log carries on with whole lines.
    const after = await execa('node', [APPENDER, board, '2'], { reject: false });
    expect(after.exitCode).toBe(0);
    expect(parsedLines(board).length).toBe(kept.length + 2);
  });

  it('refuses a symlink planted as the events file', () => {
    const board = tempDir();
    const outside = path.join(tempDir(), 'target');
    writeFileSync(outside, 'untouched');
    mkdirSync(path.join(board, '.kanban-supervisor'));
    symlinkSync(outside, path.join(board, EVENTS));
    expect(() => LineLog.open(board, EVENTS)).toThrow(/events\.jsonl is a symlink/);
    expect(readFileSync(outside, 'utf8')).toBe('untouched');
  });
});

describe('write failures', () => {
  it.skipIf(process.platform !== 'linux')('a full disk is one line naming the file and the cause (/dev/full)', () => {
    const fd = openSync('/dev/full', 'w');
    try {
      expect(() => writeWhole(fd, Buffer.from('x'.repeat(10_000)), 'board/.kanban-supervisor/runs/r/1.out')).toThrow(
        new UnwritableError(
          'Cannot write board/.kanban-supervisor/runs/r/1.out: the disk is full (ENOSPC). ' +
            'Free some space and run again.',
        ),
      );
    } finally {
      closeSync(fd);
    }
  });

  it.each([
    ['EDQUOT', /the disk quota is used up/],
    ['EROFS', /the file system is read-only/],
    ['EACCES', /no permission/],
    ['EPERM', /not permitted/],
  ])('%s is an UnwritableError naming the path', (code, cause) => {
    const error = unwritableFrom('board/kanban.yaml', 'replace', Object.assign(new Error('x'), { code }));
    expect(error).toBeInstanceOf(UnwritableError);
    expect((error as UnwritableError).message).toMatch(
      new RegExp(`^Cannot replace board/kanban\\.yaml: ${cause.source}.*\\(${code}`),
    );
  });

  it('any other failure is passed on as it is', () => {
    const error = Object.assign(new Error('x'), { code: 'EIO' });
    expect(unwritableFrom('f', 'write', error)).toBe(error);
  });
});
