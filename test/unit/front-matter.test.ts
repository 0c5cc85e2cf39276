import { describe, expect, it } from 'vitest';
import { parseFrontMatter } from '../../src/board/front-matter.js';

const read = (text: string) => {
  const parsed = parseFrontMatter(text);
  return parsed.ok
    ? { data: parsed.data, body: parsed.body, present: parsed.present, bodyLine: parsed.bodyLine }
    : parsed;
};

describe('front-matter: the split boards have always been read with', () => {
  it('reads the YAML between the --- lines, and the body from the line after the closing one', () => {
    expect(read('---\nrole: Tester\ntitle: x\n---\nDo it.\n')).toEqual({
      data: { role: 'Tester', title: 'x' },
      body: 'Do it.\n',
      present: true,
      bodyLine: 5,
    });
    expect(read('\uFEFF---yaml\nrole: Tester\n---\nDo it.\n')).toEqual({
      data: { role: 'Tester' },
      body: 'Do it.\n',
      present: true,
      bodyLine: 4,
    });
  });

  it('reads a file with Windows line ends as the same front-matter (no \\r in the last value)', () => {
    expect(read('---\r\nrole: Tester\r\n---\r\nDo it.\r\n')).toMatchObject({ data: { role: 'Tester' } });
  });

  it('takes a file without an opening --- (or opening with ----) as all body, and an empty file too', () => {
    expect(read('Do it.\n')).toEqual({ data: {}, body: 'Do it.\n', present: false, bodyLine: 1 });
    expect(read('----\nrole: x\n')).toEqual({ data: {}, body: '----\nrole: x\n', present: false, bodyLine: 1 });
    expect(read('')).toEqual({ data: {}, body: '', present: false, bodyLine: 1 });
  });

  it('reads front-matter of comments alone as empty, and front-matter never closed as having no body', () => {
    expect(read('---\n# just a note\n---\nDo it.\n')).toMatchObject({ data: {}, body: 'Do it.\n', present: true });
    expect(read('---\nrole: Tester\n')).toMatchObject({ data: { role: 'Tester' }, body: '', present: true });
  });

  it('refuses front-matter in any language but YAML, and YAML that is not a mapping, naming the line', () => {
    expect(read('---js\n{ role: "x" }\n---\n')).toEqual({
      ok: false,
      line: 1,
      message: 'front-matter in "js" is not accepted; only YAML front-matter (---) is',
    });
    expect(read('---\n- role\n---\n')).toEqual({
      ok: false,
      line: 2,
      message: 'front-matter must be a YAML mapping (key: value lines)',
    });
    expect(read('---\nrole: a\nrole: b\n---\n')).toMatchObject({ ok: false, line: 3 });
  });
});
