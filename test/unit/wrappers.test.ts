import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AGENTS as WRAPPERS } from '../../src/agents/index.js';
import { extractReply as extractWith } from '../../src/reply/extract.js';
import { ParsedOutput } from '../../src/reply/json.js';
import { DEFAULT_REPLY, DEFAULT_REPLY_TEXT, PROSE_TEXT } from '../fixtures/fake-model-server.mjs';
import { ROOT } from '../helpers.js';

// Real stdout of the real CLIs against the fake model server (see test/fixtures/recorded/NOTES.md).
const recorded = (name: string) => readFileSync(path.join(ROOT, 'test', 'fixtures', 'recorded', name), 'utf8');
const extractReply = (stdout: string, strategy = 'auto') => extractWith(stdout, strategy, WRAPPERS);

const REPLIES: Array<[file: string, cli: string]> = [
  ['claude.json', 'claude'],
  ['claude-verbose.json', 'claude'],
  ['codex.jsonl', 'codex'],
  ['codex-unknown-model.jsonl', 'codex'],
  ['gemini.json', 'gemini'],
  // The streaming presets (--output-format stream-json --verbose; -o stream-json) and usage figures.
  ['claude-reply.stream.jsonl', 'claude'],
  ['codex-reply.jsonl', 'codex'],
  ['gemini-reply.json', 'gemini'],
  ['gemini-reply.stream.jsonl', 'gemini'],
];
// A run whose first turn wrote hello.txt with the CLI's own file tool, then replied.
const AFTER_TOOL: Array<[file: string, cli: string]> = [
  ['claude-tool.stream.jsonl', 'claude'],
  ['codex-tool.jsonl', 'codex'],
  ['gemini-tool.stream.jsonl', 'gemini'],
];
const PROSE: Array<[file: string, cli: string]> = [
  ['claude-prose.json', 'claude'],
  ['codex-prose.jsonl', 'codex'],
  ['gemini-prose.json', 'gemini'],
];
const ERRORS: Array<[file: string, cli: string, issue: RegExp]> = [
  ['claude-timeout.json', 'claude', /^reported an error as Claude Code: Request timed out$/],
  ['claude-not-logged-in.json', 'claude', /^reported an error as Claude Code: Not logged in · Please run \/login$/],
  [
    'codex-not-logged-in.jsonl',
    'codex',
    /^reported an error as Codex: Missing environment variable: `OPENAI_API_KEY`\.$/,
  ],
  [
    'claude-429-reset.stream.jsonl',
    'claude',
    /^reported an error as Claude Code: You've hit your session limit · resets \d+:\d\dpm \(Europe\/Vilnius\)$/,
  ],
  [
    'codex-429-reset.jsonl',
    'codex',
    /^reported an error as Codex: You’ve hit your usage limit\. Try again at \d+:\d\d PM\.$/,
  ],
  [
    'gemini-429-reset.stream.jsonl',
    'gemini',
    new RegExp(
      String.raw`^reported an error as Gemini CLI: \[API Error: You have exhausted your capacity on this ` +
        String.raw`model\. Your quota will reset after 5s\.\]`,
    ),
  ],
  [
    'gemini-401.stream.jsonl',
    'gemini',
    /^reported an error as Gemini CLI: \[API Error: \{"error":\{"code":400,"message":"API key not valid/,
  ],
];
const ALL = [...REPLIES, ...AFTER_TOOL, ...PROSE, ...ERRORS.map(([file, cli]) => [file, cli] as [string, string])];

describe('agent CLI wrappers on recorded real output', () => {
  it.each(REPLIES)('%s: output auto finds the reply in the model text the %s wrapper unwraps', (file, cli) => {
    const stdout = recorded(file);
    expect(WRAPPERS.find((w) => w.name === cli)?.unwrap(new ParsedOutput(stdout))).toEqual({
      text: DEFAULT_REPLY_TEXT,
    });
    expect(extractReply(stdout)).toEqual({ found: true, reply: DEFAULT_REPLY, via: `${cli} > fenced` });
    expect(extractReply(stdout, cli as 'claude')).toEqual({
      found: true,
      reply: DEFAULT_REPLY,
      via: `${cli} > fenced`,
    });
  });

  it.each(AFTER_TOOL)('%s: the %s wrapper takes the text after the tool call', (file, cli) => {
    expect(extractReply(recorded(file))).toEqual({
      found: true,
      reply: { status: 'ok', message: 'wrote hello.txt' },
      via: `${cli} > fenced`,
    });
  });

  it.each(PROSE)('%s: prose from the model is no reply, and the issue says where it looked', (file, cli) => {
    const stdout = recorded(file);
    expect(WRAPPERS.find((w) => w.name === cli)?.unwrap(new ParsedOutput(stdout))).toEqual({ text: PROSE_TEXT });
    expect(extractReply(stdout)).toEqual({
      found: false,
      issue: expect.stringMatching(new RegExp(`^printed no JSON reply object .*\\(in the ${cli} result text\\)$`)),
    });
  });

  it.each(ERRORS)(
    '%s: an error the CLI reports in its own output is no reply, whatever the exit code',
    (file, _cli, issue) => {
      expect(extractReply(recorded(file))).toEqual({ found: false, issue: expect.stringMatching(issue) });
    },
  );

  it.each(ALL)('%s: only the %s wrapper claims it', (file, cli) => {
    const stdout = recorded(file);
    for (const wrapper of WRAPPERS) {
      if (wrapper.name === cli) expect(wrapper.unwrap(new ParsedOutput(stdout))).not.toBeNull();
      else expect(wrapper.unwrap(new ParsedOutput(stdout)), wrapper.name).toBeNull();
    }
  });

  it.each(ALL)("%s: naming another CLI's wrapper finds nothing, and says so", (file, cli) => {
    const other = cli === 'codex' ? 'gemini' : 'codex';
    expect(extractReply(recorded(file), other)).toEqual({
      found: false,
      issue: `printed something other than ${other}'s JSON output (output: ${other})`,
    });
  });

  it('reads the verbose Claude Code messages printed one per line (stream-json) like the array', () => {
    const lines = (JSON.parse(recorded('claude-verbose.json')) as unknown[]).map((m) => JSON.stringify(m)).join('\n');
    expect(extractReply(`${lines}\n`)).toEqual({ found: true, reply: DEFAULT_REPLY, via: 'claude > fenced' });
  });

  it('joins the text a Gemini CLI stream sends in deltas, and ignores the text before its last tool call', () => {
    const stream = recorded('gemini-tool.stream.jsonl').trim().split('\n');
    const early = JSON.stringify({
      type: 'message',
      role: 'assistant',
      content: '{"status":"error","message":"draft"}',
      delta: true,
    });
    expect(extractReply([stream[0], stream[1], early, ...stream.slice(2)].join('\n'))).toEqual({
      found: true,
      reply: { status: 'ok', message: 'wrote hello.txt' },
      via: 'gemini > fenced',
    });
    const noText = stream.filter((line) => !line.includes('"role":"assistant"')).join('\n');
    expect(extractReply(noText)).toEqual({
      found: false,
      issue: 'finished its Gemini CLI event stream without a model message',
    });
  });

  it('takes the last agent message of a Codex stream when the model spoke more than once', () => {
    const [started, turn, message, done] = recorded('codex.jsonl').trim().split('\n') as [
      string,
      string,
      string,
      string,
    ];
    const early = JSON.stringify({
      type: 'item.completed',
      item: { id: 'item_x', type: 'agent_message', text: '{"status":"error","message":"draft"}' },
    });
    expect(extractReply([started, turn, early, message, done].join('\n'))).toEqual({
      found: true,
      reply: DEFAULT_REPLY,
      via: 'codex > fenced',
    });
  });

  it('leaves a JSONL stream of another CLI with an error event to the generic strategies, not to Codex', () => {
    const other = [
      { type: 'step_start', part: {} },
      { type: 'error', error: { message: 'boom' } },
    ]
      .map((e) => JSON.stringify(e))
      .join('\n');
    expect(WRAPPERS.find((w) => w.name === 'codex')?.unwrap(new ParsedOutput(other))).toBeNull();
  });

  it(
    'reads a Gemini CLI object printed with a reply of its own that has a response field as a reply, ' +
      'not an envelope',
    () => {
      const reply = { status: 'ok', message: 'm', response: 'mine' };
      expect(extractReply(JSON.stringify(reply, null, 2))).toEqual({ found: true, reply, via: 'whole' });
    },
  );
});
