import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readBoard } from '../../src/board/read-board.js';
import { writeManagerAnswer } from '../../src/board/write-answer.js';
import { makeBoard, read } from '../helpers.js';

const TEXT =
  '# mine\nphase: execute # the phase\ncurrent: tasks/a.md   # keep me\ntasks:\n  - tasks/a.md # first\n' +
  '  - tasks/b.md\nextra: {keep: [1, 2]}\n';

function board(text = TEXT) {
  const dir = makeBoard({ 'kanban.yaml': text, 'tasks/a.md': 'a\n', 'tasks/b.md': 'b\n', 'tasks/c.md': 'c\n' });
  return { dir, file: path.join(dir, 'kanban.yaml') };
}

describe("writing the Manager's answer", () => {
  it('changes only current (and tasks, phase) and keeps every other byte, comments included', () => {
    const { dir, file } = board();
    const outcome = writeManagerAnswer(readBoard(file), {
      current: 'tasks/c.md',
      tasks: ['tasks/a.md', 'tasks/b.md', 'tasks/c.md'],
      phase: 'validate',
    });
    expect(outcome).toMatchObject({ written: true, keptHumanEdit: false });
    expect(read(dir, 'kanban.yaml')).toBe(
      '# mine\nphase: validate # the phase\ncurrent: tasks/c.md   # keep me\ntasks:\n  - tasks/a.md # first\n' +
        '  - tasks/b.md\n  - tasks/c.md\nextra: {keep: [1, 2]}\n',
    );
  });

  it('writes nothing when the answer repeats the board', () => {
    const { dir, file } = board();
    expect(writeManagerAnswer(readBoard(file), { current: 'tasks/a.md', tasks: ['tasks/a.md', 'tasks/b.md'] })).toEqual(
      { written: false, keptHumanEdit: false },
    );
    expect(read(dir, 'kanban.yaml')).toBe(TEXT);
  });

  it("keeps a person's change of current made during the step, and their other edits with the answer", () => {
    const { dir, file } = board();
    const before = readBoard(file);
    writeFileSync(file, TEXT.replace('current: tasks/a.md', 'current: tasks/b.md'));
    expect(
      writeManagerAnswer(before, { current: 'tasks/c.md', tasks: ['tasks/a.md', 'tasks/b.md', 'tasks/c.md'] }),
    ).toEqual({ written: false, keptHumanEdit: true, fields: ['current'] });
    expect(read(dir, 'kanban.yaml')).toContain('current: tasks/b.md');

    const again = readBoard(file);
    writeFileSync(file, `${read(dir, 'kanban.yaml')}# a note added during the step\n`);
    expect(
      writeManagerAnswer(again, { current: 'tasks/c.md', tasks: ['tasks/a.md', 'tasks/b.md', 'tasks/c.md'] }).written,
    ).toBe(true);
    expect(read(dir, 'kanban.yaml')).toMatch(
      /current: tasks\/c\.md {3}# keep me\n[\s\S]*# a note added during the step\n$/,
    );
  });

  it('leaves a board a person broke during the step for them to fix', () => {
    const { dir, file } = board();
    const before = readBoard(file);
    writeFileSync(file, 'current: [\n');
    expect(writeManagerAnswer(before, { current: 'tasks/b.md', tasks: ['tasks/a.md', 'tasks/b.md'] })).toMatchObject({
      keptHumanEdit: true,
    });
    expect(read(dir, 'kanban.yaml')).toBe('current: [\n');
  });

  it('hands the next read the text it wrote and its parse, used again only while the file still holds it', () => {
    const { file } = board();
    const outcome = writeManagerAnswer(readBoard(file), { current: 'tasks/b.md', tasks: ['tasks/a.md', 'tasks/b.md'] });
    const written = outcome.written ? outcome.board : undefined;
    expect(written?.text).toBe(read(path.dirname(file), 'kanban.yaml'));
    const next = readBoard(file, written);
    expect(next.current).toBe('tasks/b.md');
    expect(written?.parsed.ok && next.doc).toBe(written?.parsed.ok && written.parsed.doc);

    writeFileSync(file, `${written?.text ?? ''}# edited by a person\n`);
    const edited = readBoard(file, written);
    expect(edited.doc).not.toBe(written?.parsed.ok && written.parsed.doc);
    expect(edited.text).toMatch(/# edited by a person\n$/);
  });
});
