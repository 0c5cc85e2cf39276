import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parse, parseDocument, visit, type Document } from 'yaml';
import { editYamlDocument } from '../../src/board/edit.js';
import { settleDoc, spliceScalarLines } from '../../src/board/line-splice.js';

// Every node's range, in document order: equal lists mean the parse matches the text.
function ranges(doc: Document): string[] {
  const out: string[] = [];
  visit(doc, {
    Node(_, node) {
      out.push(JSON.stringify(node.range));
    },
  });
  return out;
}

const TASKS = ['tasks/a.md', 'tasks/b c.md', 'tasks/x: y #z.md', "tasks/it's.md", 'tasks/"q".md', 'null', 'yes', '- dash', '#hash', '', 'tasks/ünï.md'];

const board = (current: string) =>
  [
    '# the board',
    'phase: execute   # where we are',
    `current: ${current}  # now`,
    'sub_phase: "review"',
    'tasks:',
    ...TASKS.map((t, i) => `  - ${JSON.stringify(t)}${i % 2 ? '  # note' : ''}`),
    'keep: {a: [1, 2]}  # unknown keys stay',
    '',
  ].join('\n');

describe('spliceScalarLines', () => {
  it('reads back as the board it means, keeps every other byte, and moves the parse to the new text, step after step', () => {
    const value = fc.oneof(fc.constantFrom(...TASKS), fc.string({ maxLength: 12 }).filter((s) => !/[\r\n]/.test(s)));
    const change = fc.record({ current: fc.option(value), phase: value, sub_phase: fc.option(value) }, { requiredKeys: ['current'] });
    fc.assert(
      fc.property(fc.array(change, { minLength: 1, maxLength: 6 }), (changes) => {
        let text = board('tasks/a.md');
        const doc = parseDocument(text);
        for (const step of changes) {
          const before = parse(text) as Record<string, unknown>;
          const splice = spliceScalarLines(text, doc, before, { ...step, tasks: TASKS });
          expect(splice).not.toBeNull();
          if (!splice) return;
          expect(parse(splice.text)).toEqual({ ...before, ...step });
          // Only the values' own bytes changed: the lines around them are the same.
          expect(splice.text.split('\n').length).toBe(text.split('\n').length);
          splice.moveDoc();
          text = splice.text;
        }
        expect(ranges(settleDoc(doc))).toEqual(ranges(parseDocument(text)));
        expect(doc.toJS()).toEqual(parse(text));
        // The general edit, on the moved parse, splices the task list as on a fresh one.
        const reorder = { tasks: [...TASKS].reverse() };
        expect(editYamlDocument(text, doc, reorder).text).toBe(editYamlDocument(text, parseDocument(text), reorder).text);
      }),
      { numRuns: 200 },
    );
  });

  it('changes nothing and needs nothing when the answer repeats the board', () => {
    const text = board('tasks/a.md');
    const splice = spliceScalarLines(text, parseDocument(text), parse(text) as Record<string, unknown>, { current: 'tasks/a.md', tasks: TASKS });
    expect(splice?.text).toBe(text);
  });

  it.each([
    ['a changed task list', 'current: a\ntasks:\n  - a\n', { tasks: ['b'] }],
    ['a key that is not there yet', 'current: a\ntasks: [a]\n', { phase: 'plan' }],
    ['a value with an anchor', 'current: &c a\ntasks: [a, b]\nagain: *c\n', { current: 'b' }],
    ['a value with a tag', 'current: !!str a\ntasks: [a, b]\n', { current: 'b' }],
    ['a value on the line after its key', 'current:\n  a\ntasks: [a, b]\n', { current: 'b' }],
    ['a value over two lines', 'current: "a\n  b"\ntasks: [a, b]\n', { current: 'b' }],
    ['a block scalar', 'current: |\n  a\ntasks: [a, b]\n', { current: 'b' }],
    ['a flow mapping board', '{current: a, tasks: [a, b]}\n', { current: 'b' }],
    ['an indented board', '  current: a\n  tasks: [a, b]\n', { current: 'b' }],
    ['a value with a line break', 'current: a\ntasks: [a, b]\n', { current: 'b\nc' }],
    ['a value that is not a string', 'current: a\ntasks: [a, b]\n', { current: 5 }],
  ])('leaves %s to the general edit', (_, text, change) => {
    expect(spliceScalarLines(text, parseDocument(text), parse(text) as Record<string, unknown>, change)).toBeNull();
  });
});
