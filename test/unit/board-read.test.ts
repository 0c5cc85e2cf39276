import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { applyManagerAnswer } from '../../src/board/apply.js';
import { readBoard } from '../../src/board/board.js';
import { makeBoard } from '../helpers.js';

function board() {
  const dir = makeBoard({ 'kanban.yaml': '# mine\ncurrent: tasks/a.md\ntasks:\n  - tasks/a.md\n  - tasks/b.md\n', 'tasks/a.md': 'a\n', 'tasks/b.md': 'b\n' });
  return path.join(dir, 'kanban.yaml');
}

describe('reading back the board the loop wrote', () => {
  it('gives back the board the write checked while the file still holds its text', () => {
    const file = board();
    const applied = applyManagerAnswer(readBoard(file), { current: 'tasks/b.md', tasks: ['tasks/a.md', 'tasks/b.md'] });
    expect(applied.keptHumanEdit).toBe(false);
    const written = applied.keptHumanEdit ? undefined : applied.board;
    expect(written?.current).toBe('tasks/b.md');
    expect(readBoard(file, written)).toBe(written);
  });

  it('parses and checks the file again once a person has changed it', () => {
    const file = board();
    const applied = applyManagerAnswer(readBoard(file), { current: 'tasks/b.md', tasks: ['tasks/a.md', 'tasks/b.md'] });
    const written = applied.keptHumanEdit ? undefined : applied.board;
    writeFileSync(file, '# mine\ncurrent: tasks/a.md\ntasks:\n  - tasks/a.md\n  - tasks/b.md\n');
    const again = readBoard(file, written);
    expect(again).not.toBe(written);
    expect(again.current).toBe('tasks/a.md');
    writeFileSync(file, 'current: tasks/c.md\ntasks: [tasks/a.md]\n');
    expect(() => readBoard(file, written)).toThrow(/\/current "tasks\/c\.md" is not in \/tasks/);
  });
});
