import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { stringify } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { Tail } from '../../src/agent/bounded-tail.js';
import { parseBoard, readBoard } from '../../src/board/read-board.js';
import { InputError } from '../../src/errors.js';
import { parseFrontMatter } from '../../src/board/front-matter.js';
import { AGENTS } from '../../src/agents/index.js';
import { extractReply as extractWith, type OutputStrategy } from '../../src/reply/extract.js';
import { resolveInBoard } from '../../src/board/paths.js';

const extractReply = (stdout: string, strategy: OutputStrategy = 'auto') => extractWith(stdout, strategy, AGENTS);
const STRATEGIES: OutputStrategy[] = ['auto', 'whole', 'fenced', 'last-line', 'claude', 'codex', 'gemini'];

// Pieces agents really print, so random text hits the parsers' interesting paths.
const FRAGMENTS = [
  '```json\n',
  '```',
  '\n',
  '{',
  '}',
  '[',
  ']',
  '"status":',
  '"ok"',
  '"message":"m"',
  ',',
  '"type":"result"',
  '"result":',
  '"is_error":true',
  '"type":"item.completed"',
  '"item":{"type":"agent_message","text":',
  '"response":',
  '"stats":{}',
  '\\"',
  '\u0000',
  '\uFFFD',
  ' ',
];
const agentText = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 300 }),
  fc
    .array(fc.oneof(fc.constantFrom(...FRAGMENTS), fc.string({ maxLength: 8 })), { maxLength: 80 })
    .map((parts) => parts.join('')),
  fc.jsonValue().map((value) => JSON.stringify(value)),
  fc.array(fc.jsonValue(), { maxLength: 6 }).map((values) => values.map((v) => JSON.stringify(v)).join('\n')),
);

const reply = fc.record({ status: fc.constantFrom('ok', 'blocked', 'error', 'escalate'), message: fc.string() });

describe('reply extraction on arbitrary output (fast-check)', () => {
  it('never throws, and either finds an object or says why not', () => {
    fc.assert(
      fc.property(agentText, fc.constantFrom(...STRATEGIES), (stdout, strategy) => {
        const result = extractReply(stdout, strategy);
        if (result.found)
          expect(typeof result.reply === 'object' && result.reply !== null && !Array.isArray(result.reply)).toBe(true);
        else expect(typeof result.issue).toBe('string');
      }),
      { numRuns: 2000 },
    );
  });

  it('finds a reply printed as the last line after any chatter that holds no object', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 200 }).filter((s) => !s.includes('{')),
        reply,
        fc.boolean(),
        (chatter, value, newline) => {
          const result = extractReply(`${chatter}\n${JSON.stringify(value)}${newline ? '\n' : ''}`);
          expect(result).toMatchObject({ found: true, reply: value });
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('finds a reply in the last ```json block whatever prose surrounds it', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 100 }).filter((s) => !/[{`]/.test(s)),
        reply,
        (prose, value) => {
          const result = extractReply(`${prose}\n\`\`\`json\n${JSON.stringify(value, null, 2)}\n\`\`\`\n${prose}`);
          expect(result).toMatchObject({ found: true, reply: value });
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('board parsing on arbitrary text (fast-check)', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'ks-prop-'));
  const file = path.join(dir, 'kanban.yaml');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const yamlText = fc.oneof(
    fc.string({ unit: 'binary', maxLength: 300 }),
    fc
      .array(
        fc.oneof(
          fc.constantFrom(
            'current: ',
            'tasks:\n',
            '  - ',
            'phase: ',
            'supervisor:\n  ',
            'max_retries: ',
            '&a ',
            '*a',
            '<<: ',
            '!!js/function ',
            '__proto__: ',
            '---\n',
            '[',
            ']',
            '{',
            '}',
            ': ',
            '\n',
            '"',
            "'",
            '\t',
            '\u0000',
          ),
          fc.string({ maxLength: 6 }),
        ),
        { maxLength: 60 },
      )
      .map((p) => p.join('')),
    fc.jsonValue().map((value) => stringify(value)),
    fc
      .dictionary(fc.constantFrom('current', 'tasks', 'phase', 'sub_phase', 'supervisor', '__proto__'), fc.jsonValue())
      .map((value) => stringify(value)),
  );

  it('never throws: it returns a board or at least one problem with a line', () => {
    fc.assert(
      fc.property(yamlText, (text) => {
        const { board, problems } = parseBoard(file, text);
        if (board) expect(problems).toEqual([]);
        else {
          expect(problems.length).toBeGreaterThan(0);
          for (const problem of problems)
            expect(problem).toMatchObject({ file: 'kanban.yaml', message: expect.any(String) });
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('reads back every well-formed board it is given', () => {
    const segment = fc.stringMatching(/^[a-z0-9][a-z0-9_-]{0,8}$/);
    const task = fc.tuple(segment, segment).map(([folder, name]) => `${folder}/${name}.md`);
    fc.assert(
      fc.property(
        fc.uniqueArray(task, { minLength: 1, maxLength: 8 }),
        fc.nat(),
        fc.option(fc.string({ maxLength: 10 })),
        (tasks, pick, phase) => {
          const state = { ...(phase !== null && { phase }), current: tasks[pick % tasks.length] as string, tasks };
          const { board, problems } = parseBoard(file, stringify(state));
          expect(problems).toEqual([]);
          expect(board).toMatchObject(state);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('reading a board file either returns it or throws an InputError, never anything else', () => {
    fc.assert(
      fc.property(yamlText, (text) => {
        writeFileSync(file, text);
        try {
          readBoard(file);
        } catch (error) {
          expect(error).toBeInstanceOf(InputError);
          expect((error as Error).message.split('\n')).toHaveLength(1);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('parses any front-matter text without throwing or evaluating it', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          yamlText,
          yamlText.map((t) => `---\n${t}\n---\nbody`),
          yamlText.map((t) => `---js\n${t}\n---\n`),
        ),
        (text) => {
          const result = parseFrontMatter(text);
          if (!result.ok) expect(result.line).toBeGreaterThanOrEqual(1);
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe('board paths and the tail (fast-check)', () => {
  it('never resolves a path to anywhere outside the board folder', () => {
    const dir = path.join(tmpdir(), 'ks-prop-board'); // need not exist: nothing is read
    const part = fc.constantFrom('..', '.', 'a', 'b', '', '..a', 'a..', '/', '\\', '\u0000', '~');
    fc.assert(
      fc.property(fc.array(part, { maxLength: 8 }), (parts) => {
        const where = resolveInBoard(dir, parts.join('/'));
        if (where.ok) {
          const rel = path.relative(dir, where.absolute);
          expect(rel === '' || rel === '..' || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel)).toBe(false);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('accepts any path of plain names, names starting with dots included', () => {
    const dir = path.join(tmpdir(), 'ks-prop-board');
    const name = fc.constantFrom('a', 'b.md', '..a', 'a..', '.hidden', '...', 'tasks');
    fc.assert(
      fc.property(fc.array(name, { minLength: 1, maxLength: 6 }), (parts) => {
        expect(resolveInBoard(dir, parts.join('/'))).toEqual({ ok: true, absolute: path.join(dir, ...parts) });
      }),
      { numRuns: 500 },
    );
  });

  it('keeps exactly the last `limit` bytes of any sequence of chunks', () => {
    fc.assert(
      fc.property(
        fc.array(fc.uint8Array({ maxLength: 400 }), { maxLength: 60 }),
        fc.integer({ min: 1, max: 1500 }),
        (chunks, limit) => {
          const tail = new Tail(limit);
          for (const chunk of chunks) tail.push(Buffer.from(chunk));
          const all = Buffer.concat(chunks.map((c) => Buffer.from(c)));
          expect(tail.total).toBe(all.length);
          expect(tail.truncated).toBe(all.length > limit);
          expect(tail.text()).toBe(all.subarray(Math.max(0, all.length - limit)).toString('utf8'));
        },
      ),
      { numRuns: 1000 },
    );
  });
});
