import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { AttemptResult } from '../../src/agent/attempt.js';
import { AGENTS, failureInLine } from '../../src/agents/index.js';
import { judgeAttempt } from '../../src/loop/run-once.js';
import { errorLines } from '../../src/agent/failure-note.js';
import type { FailurePatterns } from '../../src/reply/failure-patterns.js';
import { ROOT } from '../helpers.js';

const context = (command: string[], patterns?: FailurePatterns) => ({
  command,
  patterns,
  now: new Date('2026-11-27T05:00:00Z'),
  timeZone: 'UTC',
});
const OPENCODE: FailurePatterns = {
  usage_limit: ['stream error.*(rate.?limit|too many requests)'],
  login: ['stream error.*(invalid.{0,20}api.?key|unauthorized)'],
  transient: ['stream error.*overloaded'],
  login_hint: 'Give opencode its key.',
};
// opencode --print-logs on a 429 (1.18.33), and what it printed before.
const LIMITED =
  'timestamp=2026-11-27T05:33:45.818Z level=ERROR run=dceeb4bb message="stream error" providerID=fake ' +
  'error.error="AI_APICallError: This request would exceed your account\'s rate limit. Please try again later."';

describe("failureInLine: a running agent's line that already shows its failure", () => {
  it("reads a stderr line by the role's failures: patterns, naming the program as the CLI", () => {
    const command = ['opencode', 'run', '--print-logs'];
    expect(failureInLine(LIMITED, 'stderr', context(command, OPENCODE))).toEqual({
      kind: 'usage_limit',
      cli: 'opencode',
      detail: LIMITED,
      resetAt: null,
    });
    expect(
      failureInLine('level=ERROR message="stream error" error.error="AI_APICallError: invalid x-api-key"', 'stderr', {
        ...context(command, OPENCODE),
      }),
    ).toMatchObject({ kind: 'login', hint: 'Give opencode its key.' });
    expect(failureInLine('level=INFO message=loop step=0', 'stderr', context(command, OPENCODE))).toBeUndefined();
  });

  it('never reads stdout (the transcript) by the role patterns, nor a line no pattern or adapter knows', () => {
    expect(failureInLine(LIMITED, 'stdout', context(['opencode', 'run'], OPENCODE))).toBeUndefined();
    expect(failureInLine(LIMITED, 'stderr', context(['opencode', 'run']))).toBeUndefined();
  });

  it("still reads Codex's stdout events by its adapter, and a reset the pattern captures", () => {
    const rejected =
      '{"type":"error","message":"Reconnecting... 2/5 (unexpected status 401 Unauthorized: Missing bearer)"}';
    expect(failureInLine(rejected, 'stdout', context(['codex', 'exec']))).toMatchObject({
      kind: 'login',
      cli: 'codex',
    });
    expect(
      failureInLine('429: retry in 90s', 'stderr', context(['my-cli'], { usage_limit: ['retry in (?<reset>\\d+s)'] })),
    ).toMatchObject({ kind: 'usage_limit', cli: 'my-cli', resetAt: new Date('2026-11-27T05:01:30Z') });
  });
});

// Copilot CLI 1.0.102 on a 401 from its provider: the error, then its stats footer.
const COPILOT_401 = [
  '',
  'Authentication failed with provider at http://127.0.0.1:37361 (HTTP 401).',
  '  Check your COPILOT_PROVIDER_API_KEY, COPILOT_PROVIDER_API_KEY_COMMAND, or COPILOT_PROVIDER_BEARER_TOKEN.',
  '',
  '',
  'Changes    +0 -0',
  'Duration   3s',
  'Resume     copilot --resume=10b08742-4834-4eab-87d0-10a6526e86e4',
  '',
].join('\n');

describe('the stderr a failed attempt quotes', () => {
  it("quotes the lines that read like the error, not Copilot's stats footer after them", () => {
    const result: AttemptResult = {
      end: 'exited',
      exitCode: 1,
      signal: null,
      killedWith: null,
      stdout: '',
      stdoutTruncated: false,
      stdoutBytes: 0,
      stderrTail: COPILOT_401,
      durationMs: 5000,
    };
    const judged = judgeAttempt(result, 'auto', { manager: false }, { timeoutMs: 1, idleTimeoutMs: null }, AGENTS);
    expect(judged).toMatchObject({
      valid: false,
      issue:
        'printed nothing on stdout (exit code 1); stderr: Authentication failed with provider at ' +
        'http://127.0.0.1:37361 (HTTP 401). / Check your COPILOT_PROVIDER_API_KEY, ' +
        'COPILOT_PROVIDER_API_KEY_COMMAND, or COPILOT_PROVIDER_BEARER_TOKEN.',
    });
  });

  it('takes the last error line and the rest of its paragraph, at most three lines', () => {
    expect(errorLines(['starting', 'Error: first', 'Error: second', 'detail 1', 'detail 2', 'detail 3'])).toEqual([
      'Error: second',
      'detail 1',
      'detail 2',
    ]);
    expect(errorLines(['429 Too Many Requests', '', 'Changes +0 -0'])).toEqual(['429 Too Many Requests']);
  });

  it('falls back to the last three lines when none reads like an error', () => {
    expect(
      errorLines([
        'When using Gemini API, you must specify the GEMINI_API_KEY environment variable.',
        'Update your environment and try again (no reload needed if using .env)!',
        '',
      ]),
    ).toEqual([
      'When using Gemini API, you must specify the GEMINI_API_KEY environment variable.',
      'Update your environment and try again (no reload needed if using .env)!',
    ]);
  });
});

// The preset's failures: as a role file gives them.
function presetPatterns(cli: string): FailurePatterns {
  const text = readFileSync(path.join(ROOT, 'presets', cli, 'implementor.md'), 'utf8');
  return (parse(/^---\n([\s\S]*?)\n---\n/.exec(text)?.[1] ?? '') as { failures: FailurePatterns }).failures;
}
const stream = (error: string) =>
  `timestamp=2026-11-27T05:33:19.180Z level=ERROR run=707ed14a message="stream error" providerID=fake ` +
  `modelID=fake-model small=false agent=build mode=primary error.error="AI_APICallError: ${error}"`;

describe('the failures: of the opencode, Kilo and Copilot presets', () => {
  it.each(['opencode', 'kilo'])("read %s's stream error lines (1.18.33's words), nothing else", (cli) => {
    const read = (line: string) => failureInLine(line, 'stderr', context([cli, 'run'], presetPatterns(cli)));
    expect(read(stream('invalid x-api-key'))).toMatchObject({ kind: 'login' });
    expect(read(stream('Incorrect API key provided: sk-fake.'))).toMatchObject({ kind: 'login' });
    expect(read(stream(LIMITED.split('AI_APICallError: ')[1] as string))).toMatchObject({ kind: 'usage_limit' });
    expect(read(stream('Rate limit reached for gpt-x. Please try again in 20s.'))).toMatchObject({
      kind: 'usage_limit',
      resetAt: new Date('2026-11-27T05:00:20Z'),
    });
    expect(read(stream('Overloaded'))).toMatchObject({ kind: 'transient' });
    expect(read(stream('Service unavailable'))).toMatchObject({ kind: 'transient' });
    expect(read('Error: rate limit and overloaded, in a message that is not a stream error')).toBeUndefined();
  });

  it("reads Copilot CLI's closing error lines (1.0.102), never the model's text", () => {
    const patterns = presetPatterns('copilot');
    const read = (line: string) => failureInLine(line, 'stderr', context(['copilot', '--silent'], patterns));
    expect(read('Authentication failed with provider at http://127.0.0.1:44075 (HTTP 401).')).toMatchObject({
      kind: 'login',
      hint: patterns.login_hint,
    });
    expect(read('Error: No authentication information found.')).toMatchObject({ kind: 'login' });
    expect(read("429 This request would exceed your account's rate limit. Please try again later.")).toMatchObject({
      kind: 'usage_limit',
    });
    expect(
      read(
        'Failed to get response from the AI model; retried 5 times (total retry wait time: 15.07 seconds) ' +
          '(Request-ID req_fake) Last error: 503 Service unavailable',
      ),
    ).toMatchObject({ kind: 'transient' });
    expect(read('The rate limit handling in src/api.ts retries a 429 twice.')).toBeUndefined();
  });
});
