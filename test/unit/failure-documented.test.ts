import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Failure } from '../../src/agents/adapter.js';
import { classifyFailure } from '../../src/agents/index.js';
import { patternProblems, type FailurePatterns } from '../../src/reply/failure-patterns.js';
import { ROOT } from '../helpers.js';

// The public forms issue 12 lists, as envelopes the CLIs document, and output that only echoes
// such words in the agent's transcript (frankbria/ralph-claude-code#183).
const NOW = new Date('2026-04-20T10:00:00Z');
const lines = (...events: unknown[]) => events.map((e) => JSON.stringify(e)).join('\n') + '\n';
const run = (
  command: string[],
  stdout: string,
  stderr = '',
  exitCode: number | null = 1,
  patterns?: FailurePatterns,
  timeZone = 'UTC',
): Failure => classifyFailure({ stdout, stderr, exitCode }, { command, patterns, now: NOW, timeZone });
const claude = (stdout: string) => run(['claude', '-p', '--output-format', 'stream-json', '--verbose'], stdout);
const result = (fields: Record<string, unknown>) => ({
  type: 'result',
  subtype: 'success',
  is_error: true,
  session_id: 's',
  total_cost_usd: 0,
  ...fields,
});
const resetAt = (failure: Failure) =>
  failure.kind === 'usage_limit' ? (failure.resetAt?.toISOString() ?? null) : `not a limit: ${failure.kind}`;

describe('Claude Code limits, as documented', () => {
  it('reads is_error with api_error_status 429 as a limit even when subtype says success', () => {
    expect(claude(lines(result({ api_error_status: 429, result: 'API Error: Request rejected (429)' })))).toMatchObject(
      { kind: 'usage_limit', resetAt: null },
    );
  });

  it.each([
    ["You've hit your limit · resets 5pm (Europe/Vilnius)", '2026-04-20T14:01:00.000Z'],
    ["You've hit your session limit · resets 11pm (Asia/Nicosia)", '2026-04-20T20:01:00.000Z'],
    ["You've hit your weekly limit · resets Apr 23 at 4pm (America/Recife)", '2026-04-23T19:01:00.000Z'],
    [
      "You've hit your weekly limit · resets Apr 23, 4:30pm (America/Recife) · /upgrade to keep using Claude Code",
      '2026-04-23T19:31:00.000Z',
    ],
    ['Claude AI usage limit reached|1776700800', '2026-04-20T16:00:00.000Z'],
  ])('%s resets at %s', (text, iso) => {
    expect(resetAt(claude(lines(result({ api_error_status: 429, result: text }))))).toBe(iso);
    // The same in the --output-format json object, with no status (older versions).
    expect(resetAt(run(['claude', '-p'], JSON.stringify(result({ result: text }))))).toBe(iso);
  });

  it("takes a rejected rate_limit_event's resetsAt over the minute the text shows", () => {
    const stdout = lines(
      {
        type: 'rate_limit_event',
        rate_limit_info: { status: 'rejected', resetsAt: 1776700845, rateLimitType: 'five_hour' },
      },
      result({ api_error_status: 429, result: "You've hit your session limit · resets 4pm (UTC)" }),
    );
    expect(resetAt(claude(stdout))).toBe('2026-04-20T16:00:45.000Z');
  });

  it('ignores a rate_limit_event that only warns, and one of a run that then finished', () => {
    const warning = { type: 'rate_limit_event', rate_limit_info: { status: 'allowed_warning', resetsAt: 1776700845 } };
    const rejected = { type: 'rate_limit_event', rate_limit_info: { status: 'rejected', resetsAt: 1776700845 } };
    expect(claude(lines(warning, result({ is_error: false, result: 'prose' })))).toEqual({ kind: 'invalid' });
    expect(claude(lines(rejected, result({ is_error: false, result: 'prose' })))).toEqual({ kind: 'invalid' });
  });

  it.each([
    'Your usage allocation has been disabled by your admin · run /usage-credits to ask your admin for a higher limit',
    "You're out of usage credits",
    'Credit balance is too low',
  ])('"%s" needs a person, not a wait', (text) => {
    expect(claude(lines(result({ api_error_status: 429, result: text })))).toMatchObject({
      kind: 'login',
      cli: 'claude',
    });
  });

  it.each([
    'Invalid API key · Please run /login',
    'Not logged in · Please run /login',
    'OAuth token has expired. Please obtain a new token or refresh your existing token.',
  ])('"%s" is a login', (text) => {
    expect(claude(lines(result({ api_error_status: 401, result: text })))).toMatchObject({
      kind: 'login',
      hint: expect.stringContaining('ANTHROPIC_API_KEY'),
    });
  });
});

describe('Codex and Gemini CLI limits, as documented', () => {
  const codex = (message: string, timeZone = 'UTC') =>
    run(
      ['codex', 'exec', '--json'],
      lines(
        { type: 'thread.started', thread_id: 't' },
        { type: 'turn.started' },
        { type: 'error', message },
        { type: 'turn.failed', error: { message } },
      ),
      '',
      1,
      undefined,
      timeZone,
    );

  it.each([
    [
      "You've hit your usage limit. Visit https://chatgpt.com/codex/settings/usage to purchase more credits or " +
        'try again at 12:16 PM.',
      'UTC',
      '2026-04-20T12:17:00.000Z',
    ],
    ["You've hit your usage limit. Try again at 1:16 PM.", 'Europe/Vilnius', '2026-04-20T10:17:00.000Z'],
    ["You've hit your usage limit. Try again at Sep 19th, 2026 7:10 AM.", 'UTC', '2026-09-19T07:11:00.000Z'],
    [
      "You've hit your usage limit. To get more access now, send a request to your admin or try again in 3 days " +
        '6 hours 57 minutes.',
      'UTC',
      '2026-04-23T16:57:00.000Z',
    ],
    ["You've hit your usage limit. Try again later.", 'UTC', null],
  ])('Codex: %s (local zone %s) resets at %s', (message, zone, iso) => {
    expect(resetAt(codex(message, zone))).toBe(iso);
  });

  it('Gemini CLI: a QuotaError on stderr (-o json) with "reset after", and a daily quota with no time', () => {
    const closing = (type: string, message: string) =>
      JSON.stringify({ session_id: 's', error: { type, message, code: 429 } }, null, 2);
    const limited = run(
      ['gemini', '-o', 'json'],
      '',
      closing(
        'TerminalQuotaError',
        'You have exhausted your capacity on this model. Your quota will reset after 1h2m5s.',
      ),
      173,
    );
    expect(resetAt(limited)).toBe('2026-04-20T11:02:05.000Z');
    expect(
      resetAt(
        run(
          ['gemini', '-o', 'json'],
          '',
          closing('TerminalQuotaError', 'You have exhausted your daily quota on this model.'),
          173,
        ),
      ),
    ).toBeNull();
  });
});

describe('never from the transcript (ralph-claude-code#183)', () => {
  const echo =
    "You've hit your session limit · resets 5pm (Europe/Vilnius). 5-hour limit reached. " +
    'Claude AI usage limit reached|1776700800. RESOURCE_EXHAUSTED. 401 Unauthorized. 529 Overloaded.';

  it('Claude Code: a tool result and the model repeating limit words, then prose or a timeout', () => {
    const transcript = [
      { type: 'system', subtype: 'init', session_id: 's' },
      {
        type: 'assistant',
        message: {
          model: 'claude-opus-4-8',
          content: [{ type: 'tool_use', id: 't1', name: 'Read', input: { file_path: 'NOTES.md' } }],
        },
      },
      { type: 'user', message: { content: [{ type: 'tool_result', tool_use_id: 't1', content: echo }] } },
      { type: 'assistant', message: { model: 'claude-opus-4-8', content: [{ type: 'text', text: echo }] } },
    ];
    expect(claude(lines(...transcript, result({ is_error: false, result: echo })))).toEqual({ kind: 'invalid' });
    expect(claude(lines(...transcript))).toEqual({ kind: 'invalid' });
    expect(claude(lines(...transcript, result({ api_error_status: null, result: 'Request timed out' })))).toMatchObject(
      { kind: 'transient', detail: 'Request timed out' },
    );
  });

  it('Codex: command output and agent messages with limit words, finished or cut off', () => {
    const transcript = [
      { type: 'thread.started', thread_id: 't' },
      { type: 'turn.started' },
      {
        type: 'item.completed',
        item: {
          id: 'i0',
          type: 'command_execution',
          command: 'cat NOTES.md',
          aggregated_output: echo,
          exit_code: 0,
          status: 'completed',
        },
      },
      { type: 'item.completed', item: { id: 'i1', type: 'agent_message', text: echo } },
      { type: 'item.completed', item: { id: 'i2', type: 'error', message: echo } },
    ];
    expect(
      run(
        ['codex', 'exec'],
        lines(...transcript, { type: 'turn.completed', usage: { input_tokens: 1, output_tokens: 1 } }),
      ),
    ).toEqual({ kind: 'invalid' });
    expect(run(['codex', 'exec'], lines(...transcript), '', null)).toEqual({ kind: 'invalid' });
  });

  it('Gemini CLI: a tool result and model text with quota words, in a run that finished', () => {
    const stdout = lines(
      { type: 'init', session_id: 's' },
      { type: 'tool_use', tool_name: 'read_file', tool_id: 't', parameters: { file_path: 'NOTES.md' } },
      { type: 'tool_result', tool_id: 't', status: 'success', output: echo },
      { type: 'message', role: 'assistant', content: echo, delta: true },
      { type: 'result', status: 'success', stats: { total_tokens: 2, input_tokens: 1, output_tokens: 1 } },
    );
    expect(run(['gemini', '-o', 'stream-json'], stdout, '', 0)).toEqual({ kind: 'invalid' });
  });

  it('any other CLI: nothing is recognised without patterns', () => {
    expect(run(['aider'], `${echo}\n`, echo)).toEqual({ kind: 'invalid' });
  });
});

describe('failures: patterns of a role file', () => {
  const patterns: FailurePatterns = {
    usage_limit: [
      '^Error: rate limited, retry in (?<reset>\\d+) seconds$',
      'quota resets at (?<reset>\\d{4}-\\d\\d-\\d\\dT[\\d:]+Z)',
    ],
    login: ['^Error: not authenticated'],
    transient: ['^HTTP 50[23]\\b'],
    login_hint: 'Run `mycli auth login`.',
  };
  const mine = (stdout: string, stderr = '') => run(['mycli', 'do'], stdout, stderr, 1, patterns);

  it('classifies by the first kind that matches stderr or the last lines of stdout, with the reset it captures', () => {
    expect(mine('', 'Error: rate limited, retry in 90 seconds\n')).toEqual({
      kind: 'usage_limit',
      cli: 'mycli',
      detail: 'Error: rate limited, retry in 90 seconds',
      resetAt: new Date(NOW.getTime() + 90_000),
    });
    expect(mine('working\nquota resets at 2026-04-20T12:00:00Z\n')).toMatchObject({
      kind: 'usage_limit',
      resetAt: new Date('2026-04-20T12:00:00Z'),
    });
    expect(mine('', 'error: NOT AUTHENTICATED\nHTTP 503\n')).toEqual({
      kind: 'login',
      cli: 'mycli',
      detail: 'error: NOT AUTHENTICATED',
      hint: 'Run `mycli auth login`.',
    });
    expect(mine('HTTP 502 Bad Gateway\n')).toMatchObject({ kind: 'transient' });
    expect(mine('all good, but no JSON\n')).toEqual({ kind: 'invalid' });
  });

  it('does not look at stdout before its last 20 lines: that is the transcript', () => {
    const stdout = ['Error: not authenticated', ...Array.from({ length: 20 }, (_, i) => `line ${i}`)].join('\n');
    expect(mine(stdout)).toEqual({ kind: 'invalid' });
  });

  it('adds to the built-in knowledge of a known CLI, and goes first', () => {
    const stdout = lines(result({ api_error_status: 529, result: 'API Error: 529 Overloaded' }));
    expect(
      run(['claude', '-p'], stdout, 'proxy: quota gone\n', 1, { usage_limit: ['^proxy: quota gone$'] }),
    ).toMatchObject({ kind: 'usage_limit', cli: 'claude' });
    expect(run(['claude', '-p'], stdout, '', 1, { usage_limit: ['^proxy: quota gone$'] })).toMatchObject({
      kind: 'transient',
    });
  });

  it('reports patterns that are not regular expressions, and never matches them', () => {
    expect(patternProblems({ login: ['ok', '(unclosed'], transient: ['[z-a]'] })).toEqual([
      expect.stringMatching(/^failures\.login\[1\]: Invalid regular expression/),
      expect.stringMatching(/^failures\.transient\[0\]: Invalid regular expression/),
    ]);
    expect(run(['mycli'], '(unclosed\n', '', 1, { login: ['(unclosed'] })).toEqual({ kind: 'invalid' });
  });

  it('has a JSON Schema in the shipped role schema that accepts the documented shape and rejects others', () => {
    const Ajv = (
      createRequire(import.meta.url)('ajv') as {
        default: new (o: object) => { compile: (s: object) => (d: unknown) => boolean };
      }
    ).default;
    const roleSchema = JSON.parse(readFileSync(path.join(ROOT, 'schemas', 'role.schema.json'), 'utf8')) as {
      properties: { failures: object };
    };
    const validate = new Ajv({ allErrors: true, strict: false }).compile(roleSchema.properties.failures);
    expect(validate(patterns)).toBe(true);
    expect(validate({})).toBe(true);
    expect(validate({ usage_limit: 'not a list' })).toBe(false);
    expect(validate({ login: [''] })).toBe(false);
    expect(validate({ unknown: [] })).toBe(false);
  });
});
