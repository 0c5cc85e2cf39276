import { describe, expect, it } from 'vitest';
import { agentFor } from '../../src/agents/index.js';
import { stdoutEvents } from '../../src/reply/json.js';
import { recordedFile, recording } from './recorded.js';

/** The usage an attempt's stdout reports, read by the adapter of the command that printed it. */
const attemptUsage = (stdout: string, command: string[]) => agentFor(command).usage(stdoutEvents(stdout));

// The recordings' server answered each model request with input 1200 (800 of them cached, 300 more
// written to Claude's cache), output 80 (20 of them reasoning) when `usage` is set (record.mjs), else
// input 100 and output about text length / 4.
describe('attemptUsage on what the real CLIs printed', () => {
  it("Claude Code: the final result's total_cost_usd and usage, the cache reads and writes counted as input", () => {
    expect(attemptUsage(recording('claude-reply.stream').stdout, ['claude'])).toEqual({
      costUsd: 0.010275,
      inputTokens: 2300,
      cachedInputTokens: 800,
      outputTokens: 80,
      totalTokens: 2380,
    });
    expect(attemptUsage(recordedFile('claude.json'), ['claude'])).toEqual({
      costUsd: 0.0010500000000000002,
      inputTokens: 100,
      cachedInputTokens: 0,
      outputTokens: 22,
      totalTokens: 122,
    });
    expect(attemptUsage(recordedFile('claude-verbose.json'), ['claude'])).toEqual(
      attemptUsage(recordedFile('claude.json'), ['claude']),
    );
  });

  it('Claude Code: two model requests of one run are in the result once, not added to the assistant messages', () => {
    const usage = attemptUsage(recording('claude-tool.stream').stdout, ['claude']);
    expect(usage).toMatchObject({ inputTokens: 200, cachedInputTokens: 0 });
    expect(usage?.costUsd).toBeCloseTo(0.0019, 6);
  });

  it('Claude Code: a failed or limited attempt reports its (zero) spend too', () => {
    expect(attemptUsage(recording('claude-429-reset.stream').stdout, ['claude'])).toEqual({
      costUsd: 0,
      inputTokens: 0,
      cachedInputTokens: 0,
      outputTokens: 0,
      totalTokens: 0,
    });
    expect(attemptUsage(recordedFile('claude-not-logged-in.json'), ['claude'])).toMatchObject({ costUsd: 0 });
  });

  it('Codex: turn.completed usage, a running total for the thread (two requests of one turn: 200 input)', () => {
    expect(attemptUsage(recording('codex-reply').stdout, ['codex'])).toEqual({
      inputTokens: 1200,
      cachedInputTokens: 800,
      outputTokens: 80,
      totalTokens: 1280,
    });
    expect(attemptUsage(recording('codex-tool').stdout, ['codex'])).toEqual({
      inputTokens: 200,
      cachedInputTokens: 0,
      outputTokens: 20,
      totalTokens: 220,
    });
  });

  it('Codex: the last turn.completed of several, never their sum (each is the total so far)', () => {
    const [started, turn, message, completed] = recordedFile('codex.jsonl').trim().split('\n') as [
      string,
      string,
      string,
      string,
    ];
    const later = JSON.stringify({
      type: 'turn.completed',
      usage: { input_tokens: 350, cached_input_tokens: 100, output_tokens: 60 },
    });
    expect(attemptUsage([started, turn, message, completed, turn, message, later].join('\n'), ['codex'])).toEqual({
      inputTokens: 350,
      cachedInputTokens: 100,
      outputTokens: 60,
      totalTokens: 410,
    });
  });

  it('Codex: a failed turn reports no usage', () => {
    expect(attemptUsage(recording('codex-429-reset').stdout, ['codex'])).toBeUndefined();
  });

  it(
    "Gemini CLI: every model's tokens, the router's included; thoughts count as output (json and stream-json " +
      'agree)',
    () => {
      const expected = { inputTokens: 2400, cachedInputTokens: 1600, outputTokens: 200, totalTokens: 2600 };
      expect(attemptUsage(recording('gemini-reply').stdout, ['gemini'])).toEqual(expected);
      expect(attemptUsage(recording('gemini-reply.stream').stdout, ['gemini'])).toEqual(expected);
      expect(attemptUsage(recordedFile('gemini.json'), ['gemini'])).toEqual({
        inputTokens: 200,
        cachedInputTokens: 0,
        outputTokens: 35,
        totalTokens: 235,
      });
    },
  );

  it('Gemini CLI: a limited attempt still reports what its router call spent', () => {
    expect(attemptUsage(recording('gemini-429-reset.stream').stdout, ['gemini'])).toEqual({
      inputTokens: 100,
      cachedInputTokens: 0,
      outputTokens: 13,
      totalTokens: 113,
    });
  });

  it('nothing for output without an envelope, or a stream cut off before its totals', () => {
    expect(attemptUsage('', ['claude'])).toBeUndefined();
    expect(attemptUsage('{"status":"ok","message":"done"}\n', ['./agent.sh'])).toBeUndefined();
    expect(attemptUsage(recording('claude-429-apikey-retries.stream').stdout, ['claude'])).toBeUndefined();
    expect(attemptUsage(recording('gemini-503-retries.stream').stdout, ['gemini'])).toBeUndefined();
  });

  it(
    "a known CLI's adapter reads only its own format; any other command (a wrapper script) " +
      'is read in every known format',
    () => {
      const claude = recording('claude-reply.stream').stdout;
      expect(attemptUsage(claude, ['codex', 'exec'])).toBeUndefined();
      expect(attemptUsage(claude, ['./run-claude.sh'])).toEqual(attemptUsage(claude, ['claude']));
      expect(attemptUsage(recording('gemini-reply').stdout, ['node', 'wrapper.js'])).toEqual(
        attemptUsage(recording('gemini-reply').stdout, ['gemini']),
      );
    },
  );
});
