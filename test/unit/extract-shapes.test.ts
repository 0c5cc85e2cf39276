import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AGENTS } from '../../src/agents/index.js';
import { extractReply, lastObject } from '../../src/reply/extract.js';
import { checkReply } from '../../src/reply/check-reply.js';

// As a run extracts: every known envelope, and the role's reply schema deciding what is a reply.
const isReply = (value: Record<string, unknown>) => checkReply(value, { manager: false }).valid;
const extract = (stdout: string) => extractReply(stdout, 'auto', AGENTS, isReply);

const reply = { status: 'ok', message: 'Created hello.txt; the log is in the task file.' };
const line = JSON.stringify(reply);
const pretty = JSON.stringify(reply, null, 2);

// gnhf's json-extract cases (src/core/agents/json-extract.test.ts), restated with our reply: the
// eight shapes that hold one. The last four were not found before the balanced-object scan.
const SHAPES: Array<[shape: string, stdout: string, via: string]> = [
  ['the whole output', line, 'whole'],
  ['a ```json fence', `\`\`\`json\n${line}\n\`\`\``, 'fenced'],
  ['prose, then the reply on a line of its own', `BUILD SUCCESS confirms the change.\n\n${line}`, 'last-line'],
  ['the reply, then trailing prose', `${line}\n\nDone!`, 'last-line'],
  ['pretty-printed after prose', `I did the work. Here is my reply:\n${pretty}\n`, 'last-object'],
  ['pretty-printed in a bare ``` fence', `Here it is:\n\`\`\`\n${pretty}\n\`\`\`\nThanks.`, 'last-object'],
  ['two objects inline, the reply last', `log: {"step":1} final: ${line}`, 'last-object'],
  ['text after the reply on its line', `${line} <- that is my reply.`, 'last-object'],
];

describe('output: auto finds the reply wherever a model puts it', () => {
  it.each(SHAPES)('in %s', (_, stdout, via) => {
    expect(extract(stdout)).toEqual({ found: true, reply, via });
  });

  it('in each shape inside a Claude Code result and a Codex agent message too', () => {
    for (const [, stdout, via] of SHAPES) {
      const claude = { type: 'result', subtype: 'success', is_error: false, result: stdout };
      expect(extract(JSON.stringify(claude))).toEqual({ found: true, reply, via: `claude > ${via}` });
      const codex = [
        { type: 'thread.started', thread_id: 't' },
        { type: 'item.completed', item: { id: '1', type: 'agent_message', text: stdout } },
      ];
      expect(extract(codex.map((e) => JSON.stringify(e)).join('\n'))).toEqual({
        found: true,
        reply,
        via: `codex > ${via}`,
      });
    }
  });

  it('respects braces and quotes inside strings', () => {
    const tricky = { status: 'ok', message: 'mentions {} and } and {"a": "\\"}"}' };
    expect(extract(`Result: ${JSON.stringify(tricky)} (end)`)).toMatchObject({ found: true, reply: tricky });
  });

  it('skips an object that never closes, after the reply or before it', () => {
    expect(extract(`good ${line} bad {"status":`)).toMatchObject({ found: true, reply, via: 'last-object' });
    expect(extract(`{"oops": [1, 2,\n${pretty}`)).toMatchObject({ found: true, reply });
  });

  it('passes over later objects that are not a reply and takes the last one that is', () => {
    const text = `${pretty}\nTool result: {"tool":"bash","exit":0}\nDebug: {"elapsed":12}`;
    expect(extract(text)).toEqual({ found: true, reply, via: 'last-object' });
  });

  it('takes a reply that prose only made look nested ({see {…}})', () => {
    expect(extract(`{see the reply: ${line} }`)).toMatchObject({ found: true, reply });
  });

  it('never takes an object out of a larger object that parsed and was rejected', () => {
    const wrapped = `Answer: {"status":"done","message":${line}}`;
    expect(lastObject(wrapped, isReply)).toBeUndefined();
  });

  it('still names why the last ```json block or JSON line fails when nothing anywhere passes', () => {
    expect(extract('Here:\n```json\n{"status":"done","message":"x"}\n```\n')).toEqual({
      found: true,
      reply: { status: 'done', message: 'x' },
      via: 'fenced',
    });
    expect(extract('prose {"progress": 50}\n')).toMatchObject({ found: false });
  });

  it('gives up quickly on megabytes of hostile braces and quotes', () => {
    for (const unit of ['{', '{"', '{"a":', '{}', '"{', '{\\"']) {
      const text = unit.repeat(Math.ceil((4 * 1024 * 1024) / unit.length));
      const started = performance.now();
      expect(extract(text).found).toBe(false);
      expect(performance.now() - started).toBeLessThan(5000);
    }
  });
});

// Prose and fences of any kind that hold no object of their own (no `{`), around a reply.
const prose = fc.string({ maxLength: 80 }).filter((s) => !s.includes('{'));
const fence = fc.constantFrom('', '```\n', '```json\n', '```text\n', '~~~\n');

describe('the reply found whatever wraps it (fast-check)', () => {
  it('finds any reply object, pretty-printed or not, wrapped in arbitrary prose and fences', () => {
    fc.assert(
      fc.property(
        fc.record({
          status: fc.constantFrom('ok', 'blocked', 'error', 'escalate'),
          message: fc.string(),
          extra: fc.option(fc.jsonValue(), { nil: undefined }),
        }),
        fc.boolean(),
        prose,
        fence,
        prose,
        (value, indent, before, open, after) => {
          const body = JSON.stringify(value, null, indent ? 2 : undefined);
          const close = open === '' ? '' : open.startsWith('~') ? '\n~~~' : '\n```';
          const result = extract(`${before}\n${open}${body}${close}\n${after}`);
          expect(result).toMatchObject({ found: true, reply: JSON.parse(body) as object });
        },
      ),
      { numRuns: 1000 },
    );
  });
});
