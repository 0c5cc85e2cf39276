import { readFileSync } from 'node:fs';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AgentCli } from '../../src/agents/adapter.js';
import { claude } from '../../src/agents/claude.js';
import { codex } from '../../src/agents/codex.js';
import { gemini } from '../../src/agents/gemini.js';
import { AgentText, Output } from '../../src/attempt-output/copy-stream.js';
import { Transcript, transcriptCli } from '../../src/attempt-output/transcript.js';
import { ROOT } from '../helpers.js';

const recorded = (name: string) => readFileSync(path.join(ROOT, 'test', 'fixtures', 'recorded', name));
const events = (name: string) =>
  String(recorded(name))
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);

/** What a stdout, cut into `chunks`, becomes through `cli`'s transcript on an output that is (or is not) a terminal. */
async function shown(cli: AgentCli, chunks: Buffer[], terminal = false): Promise<string> {
  const stream = new PassThrough();
  const got: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => got.push(chunk));
  const text = new Transcript(cli, new AgentText(new Output(stream, terminal)));
  for (const chunk of chunks) await text.push(chunk);
  await text.end(false);
  return Buffer.concat(got).toString();
}

// The model's text as the recorded replies hold it.
const REPLY = 'Here is my reply.\n\n```json\n{\n  "status": "ok",\n  "message": "done by fake model"\n}\n```';
const WROTE = 'Wrote hello.txt.\n\n```json\n{"status":"ok","message":"wrote hello.txt"}\n```';

describe('transcript of each known CLI, on its recorded output', () => {
  it(
    'Claude: the assistant text in full, a tool call as the status line words it, nothing for init, ' +
      'tool results and the result',
    () => {
      expect(events('claude-reply.stream.jsonl').map((e) => claude.transcript?.(e, '/tmp'))).toEqual([
        undefined,
        REPLY,
        undefined,
      ]);
      const tool = events('claude-tool.stream.jsonl');
      expect(tool.map((e) => claude.transcript?.(e))).toEqual([undefined, 'Write: hello.txt', null, WROTE, undefined]);
      expect(claude.activity(tool[3] as Record<string, unknown>)).toBe('Wrote hello.txt.');
    },
  );

  it('Codex: the agent message in full, a file change once', () => {
    expect(events('codex-reply.jsonl').map((e) => codex.transcript?.(e))).toEqual([
      undefined,
      undefined,
      REPLY,
      undefined,
    ]);
    expect(events('codex-tool.jsonl').map((e) => codex.transcript?.(e, '/tmp/ks-rec-cwd-Urcjuq'))).toEqual([
      undefined,
      undefined,
      undefined,
      'Edit: hello.txt',
      WROTE,
      undefined,
    ]);
  });

  it('Gemini: each delta a piece of the message, nothing for init, the prompt and the result', () => {
    const pieces = events('gemini-reply.stream.jsonl').map((e) => gemini.transcript?.(e));
    expect(pieces).toEqual([
      undefined,
      undefined,
      { piece: expect.any(String) },
      { piece: expect.any(String) },
      undefined,
    ]);
    expect(pieces.map((p) => (typeof p === 'object' && p ? p.piece : '')).join('')).toBe(`${REPLY}\n`);
    expect(
      gemini.transcript?.({ type: 'tool_use', tool_name: 'run_shell_command', parameters: { command: 'npm test' } }),
    ).toBe('run_shell_command: npm test');
  });
});

describe('Transcript', () => {
  it("shows each recorded stream as the model's text, one piece after another for Gemini", async () => {
    expect(await shown(claude, [recorded('claude-reply.stream.jsonl')])).toBe(`${REPLY}\n`);
    expect(await shown(claude, [recorded('claude-tool.stream.jsonl')])).toBe(`Write: hello.txt\n${WROTE}\n`);
    expect(await shown(codex, [recorded('codex-tool.jsonl')])).toBe(
      `Edit: /tmp/ks-rec-cwd-Urcjuq/hello.txt\n${WROTE}\n`,
    );
    expect(await shown(gemini, [recorded('gemini-reply.stream.jsonl')])).toBe(`${REPLY}\n`);
  });

  it(
    "passes other lines on as they are, puts a piece's line to an end before the next line, " +
      'and cleans the text on a terminal',
    async () => {
      const piece = (content: string) =>
        `${JSON.stringify({ type: 'message', role: 'assistant', content, delta: true })}\n`;
      const out = [
        'plain line\n',
        '{"not":"gemini"}\n',
        piece('one, '),
        piece('two'),
        'after\n',
        '{broken\n',
        'no end',
      ].join('');
      expect(await shown(gemini, [Buffer.from(out)])).toBe(
        'plain line\n{"not":"gemini"}\none, two\nafter\n{broken\nno end',
      );
      const red =
        JSON.stringify({
          type: 'assistant',
          message: { content: [{ type: 'text', text: '\x1b[31mred\x1b[0m text' }] },
        }) + '\n';
      expect(await shown(claude, [Buffer.from(red)], true)).toBe('red text\n');
    },
  );

  it('drops a line too long to parse when its type never shows, passes any other on whole', async () => {
    const big = 'x'.repeat(300 * 1024);
    const tool = `${JSON.stringify({ type: 'user', message: { content: big } })}\n`;
    const other = `{"data":"${big}"}\n`;
    const cut = (text: string) =>
      Array.from({ length: Math.ceil(text.length / 65536) }, (_, i) =>
        Buffer.from(text.slice(i * 65536, (i + 1) * 65536)),
      );
    expect(await shown(claude, cut(`${tool}after\n`))).toBe('after\n');
    expect(await shown(claude, cut(`${other}after\n`))).toBe(`${other}after\n`);
  });

  it('gives the same text however the stream is cut (property)', async () => {
    const bytes = Buffer.concat([recorded('claude-tool.stream.jsonl'), Buffer.from('ünï 🙂 plain\n')]);
    const whole = await shown(claude, [bytes]);
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.integer({ min: 1, max: bytes.length - 1 }), { maxLength: 6 }),
        async (cuts) => {
          const at = [0, ...cuts.sort((a, b) => a - b), bytes.length];
          expect(
            await shown(
              claude,
              at.slice(1).map((end, i) => bytes.subarray(at[i], end)),
            ),
          ).toBe(whole);
        },
      ),
    );
  });

  it("is used for a known CLI's attempt unless raw; never for another command or an older log", () => {
    expect(transcriptCli({ cli: 'claude' }, false)).toBe(claude);
    expect(transcriptCli({ cli: 'claude' }, true)).toBeUndefined();
    expect(transcriptCli({ cli: 'generic' }, false)).toBeUndefined();
    expect(transcriptCli({}, false)).toBeUndefined();
  });
});
