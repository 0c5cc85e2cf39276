import { describe, expect, it } from 'vitest';
import { AGENTS } from '../../src/agents/index.js';
import { extractReply as extractWith } from '../../src/reply/extract.js';

// Every known agent CLI's envelope, as a run passes them.
const extractReply = (stdout: string, strategy = 'auto') => extractWith(stdout, strategy, AGENTS);

const reply = { status: 'ok', message: 'done' };

describe('extractReply', () => {
  it('takes the whole stdout when it is the reply', () => {
    expect(extractReply(JSON.stringify(reply))).toMatchObject({ found: true, reply, via: 'whole' });
  });

  it('takes the last ```json block over earlier ones and over prose', () => {
    const text =
      'Plan:\n```json\n{"status":"error","message":"draft"}\n```\nThen:\n```json\n' +
      '{"status":"ok","message":"done"}\n```\nbye\n';
    expect(extractReply(text)).toMatchObject({ found: true, reply, via: 'fenced' });
  });

  it('takes the last line that parses as an object, skipping later non-JSON lines', () => {
    expect(
      extractReply('{"status":"error","message":"old"}\nlog {x}\n{"status":"ok","message":"done"}\nbye\n'),
    ).toMatchObject({ found: true, reply, via: 'last-line' });
  });

  it('unwraps a Claude Code result object and finds the reply in its text', () => {
    const envelope = {
      type: 'result',
      subtype: 'success',
      is_error: false,
      result: `Here you go:\n\`\`\`json\n${JSON.stringify(reply)}\n\`\`\``,
    };
    expect(extractReply(JSON.stringify(envelope))).toMatchObject({ found: true, reply, via: 'claude > fenced' });
  });

  it('unwraps the verbose Claude Code array of messages', () => {
    const messages = [
      { type: 'system' },
      { type: 'assistant', message: {} },
      { type: 'result', is_error: false, result: JSON.stringify(reply) },
    ];
    expect(extractReply(JSON.stringify(messages))).toMatchObject({ found: true, reply, via: 'claude > whole' });
  });

  it('prefers Claude Code structured_output when present', () => {
    const envelope = { type: 'result', is_error: false, result: 'prose', structured_output: reply };
    expect(extractReply(JSON.stringify(envelope))).toMatchObject({ found: true, reply, via: 'claude' });
  });

  it('treats a Claude Code envelope with is_error as no reply, whatever the exit code', () => {
    const envelope = {
      type: 'result',
      subtype: 'error_during_execution',
      is_error: true,
      result: JSON.stringify(reply),
    };
    expect(extractReply(JSON.stringify(envelope))).toMatchObject({
      found: false,
      issue: expect.stringMatching(/reported an error as Claude Code/),
    });
  });

  it('takes the last agent_message of a Codex JSONL event stream', () => {
    const lines = [
      { type: 'thread.started', thread_id: 't' },
      {
        type: 'item.completed',
        item: { id: '1', type: 'agent_message', text: '{"status":"error","message":"early"}' },
      },
      { type: 'item.completed', item: { id: '2', type: 'command_execution', command: 'ls' } },
      { type: 'item.completed', item: { id: '3', type: 'agent_message', text: JSON.stringify(reply) } },
      { type: 'turn.completed', usage: {} },
    ];
    expect(extractReply(lines.map((l) => JSON.stringify(l)).join('\n'))).toMatchObject({
      found: true,
      reply,
      via: 'codex > whole',
    });
  });

  it('reports a failed Codex turn as the issue', () => {
    const lines = [{ type: 'thread.started' }, { type: 'turn.failed', error: { message: 'stream disconnected' } }];
    expect(extractReply(lines.map((l) => JSON.stringify(l)).join('\n'))).toMatchObject({
      found: false,
      issue: expect.stringMatching(/stream disconnected/),
    });
  });

  it('unwraps the pretty-printed Gemini CLI object', () => {
    const envelope = { session_id: 's', response: `Done.\n${JSON.stringify(reply)}`, stats: {} };
    expect(extractReply(JSON.stringify(envelope, null, 2))).toMatchObject({
      found: true,
      reply,
      via: 'gemini > last-line',
    });
  });

  it('does not mistake a reply with a response field for a Gemini envelope', () => {
    const own = { ...reply, response: 'text' };
    expect(extractReply(JSON.stringify(own))).toMatchObject({ found: true, reply: own, via: 'whole' });
  });

  it('uses only the named strategy when the role names one', () => {
    const text = `${JSON.stringify(reply)}\n`;
    expect(extractReply(text, 'fenced')).toMatchObject({ found: false });
    expect(extractReply(text, 'last-line')).toMatchObject({ found: true, reply });
    expect(extractReply(text, 'codex')).toMatchObject({ found: false });
  });

  it('finds nothing in prose, empty output, arrays or scalars', () => {
    for (const text of ['', '   \n', 'All done!', '[1,2]', '42', '"ok"', '```json\nnot json\n```']) {
      expect(extractReply(text).found).toBe(false);
    }
  });
});
