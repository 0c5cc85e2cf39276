import { describe, expect, it } from 'vitest';
import { parse, parseDocument } from 'yaml';
import { editYamlDocument, editYamlFields } from '../../src/board/edit.js';

describe('editYamlFields', () => {
  it('changes only the value of current, keeping its comment and every other byte', () => {
    const text = '# top\nphase: execute # p\ncurrent: "tasks/a.md"  # now\ntasks:\n  - tasks/a.md\n  - tasks/b.md\n';
    expect(editYamlFields(text, { current: 'tasks/b.md' })).toBe(text.replace('"tasks/a.md"', 'tasks/b.md'));
  });

  it('rewrites a block list item by item, keeping the comments of items that stay', () => {
    const text = 'tasks:\n  # plan\n  - a.md  # first\n  - b.md\nafter: 1\n';
    const out = editYamlFields(text, { tasks: ['a.md', 'c.md', 'b.md'] });
    expect(out).toBe('tasks:\n  # plan\n  - a.md  # first\n  - c.md\n  - b.md\nafter: 1\n');
  });

  it('keeps the indentation style of an unindented list', () => {
    const text = 'tasks:\n- a.md\n- b.md\ncurrent: a.md\n';
    expect(editYamlFields(text, { tasks: ['b.md'], current: 'b.md' })).toBe('tasks:\n- b.md\ncurrent: b.md\n');
  });

  it('writes an emptied list and null values as valid YAML', () => {
    const out = editYamlFields('current: a.md\ntasks:\n  - a.md\n', { current: null, tasks: [] });
    expect(parse(out)).toEqual({ current: null, tasks: [] });
  });

  it('appends a field the file did not have', () => {
    expect(parse(editYamlFields('current: a\ntasks: [a]\n', { phase: 'complete' }))).toEqual({
      current: 'a',
      tasks: ['a'],
      phase: 'complete',
    });
  });

  it('quotes values that would otherwise change meaning', () => {
    const out = editYamlFields('current: a\ntasks: [a]\n', {
      current: 'tasks/x: y #z.md',
      tasks: ['tasks/x: y #z.md', 'no'],
    });
    expect(parse(out)).toEqual({ current: 'tasks/x: y #z.md', tasks: ['tasks/x: y #z.md', 'no'] });
  });

  it('falls back to re-rendering a flow-mapping board, still with the right values', () => {
    const out = editYamlFields('{current: a, tasks: [a, b], keep: 1}\n', { current: 'b' });
    expect(parse(out)).toEqual({ current: 'b', tasks: ['a', 'b'], keep: 1 });
  });
});

describe('editYamlDocument', () => {
  it('returns the parse of the spliced text it checked, and leaves the given document alone', () => {
    const text = 'current: a\ntasks: [a, b]\n';
    const doc = parseDocument(text);
    const { text: out, parsed } = editYamlDocument(text, doc, { current: 'b' });
    expect(out).toBe('current: b\ntasks: [a, b]\n');
    expect(parsed?.value).toEqual({ current: 'b', tasks: ['a', 'b'] });
    expect(parsed?.doc.toJS()).toEqual(parsed?.value);
    expect(doc.toJS()).toEqual({ current: 'a', tasks: ['a', 'b'] });
  });

  it('re-renders a fresh document when splicing is unsafe, and returns no parse', () => {
    const text = '{current: a, tasks: [a, b]}\n';
    const doc = parseDocument(text);
    const { text: out, parsed } = editYamlDocument(text, doc, { current: 'b' });
    expect(parse(out)).toEqual({ current: 'b', tasks: ['a', 'b'] });
    expect(parsed).toBeUndefined();
    expect(doc.toJS()).toEqual({ current: 'a', tasks: ['a', 'b'] });
  });
});
