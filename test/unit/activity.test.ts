import { describe, expect, it } from 'vitest';
import { activityOf as activityWith, agentFor, SHOWN_MAX } from '../../src/agents/index.js';
import { maskedHead } from '../../src/util/secrets.js';
import { recording } from './recorded.js';

// The documented events below come from all three CLIs: read as a wrapper script's, in every known format.
const activityOf = (line: string, cwd?: string) => activityWith(line, agentFor(['./agent.sh']), cwd);
// A recording is read by the adapter of the command that printed it.
const shown = (name: string) => {
  const { stdout, command } = recording(name);
  return stdout
    .split('\n')
    .map((line) => activityWith(line, agentFor(command)))
    .filter((s) => s !== undefined);
};
const json = (event: unknown) => JSON.stringify(event);

describe('activityOf on what the real CLIs streamed', () => {
  it(
    'Claude Code stream-json: the tool call, then the first line of the text; nothing for init, ' +
      'tool results and the result',
    () => {
      expect(shown('claude-tool.stream')).toEqual(['Write: hello.txt', 'Wrote hello.txt.']);
      expect(shown('claude-reply.stream')).toEqual(['Here is my reply.']);
    },
  );

  it('Claude Code stream-json: its own error message, a rejected limit and its retries', () => {
    expect(shown('claude-429-reset.stream')).toEqual([
      'Usage limit reached',
      expect.stringMatching(/^You've hit your session limit · resets /),
      expect.stringMatching(/^You've hit your session limit/),
    ]);
    expect(shown('claude-429-apikey-retries.stream')[0]).toBe(
      'Retrying the API request (attempt 1/10): rate_limit 429',
    );
  });

  it('Codex JSONL: the file change, the agent message, and errors', () => {
    expect(shown('codex-tool').map((s) => s.replace(/\/tmp\/ks-rec-cwd-\w+\//, ''))).toEqual([
      'Edit: hello.txt',
      'Edit: hello.txt',
      'Wrote hello.txt.',
    ]);
    expect(shown('codex-429-reset')).toEqual([
      'You’ve hit your usage limit. Try again at 7:13 PM.',
      'You’ve hit your usage limit. Try again at 7:13 PM.',
    ]);
  });

  it('Gemini CLI stream-json: the tool call, the text as it streams, an error result', () => {
    expect(shown('gemini-tool.stream')).toEqual([
      'write_file: hello.txt',
      'Wrote hello.txt.',
      'ok","message":"wrote hello.txt"}',
    ]);
    expect(shown('gemini-503.stream')).toEqual(['[API Error: The model is overloaded. Please try again later.]']);
  });
});

describe('activityOf on documented events', () => {
  it('names a tool call by its tool and what it acts on, paths relative to the board', () => {
    const call = (name: string, input: object) =>
      json({ type: 'assistant', message: { content: [{ type: 'tool_use', id: 't', name, input }] } });
    expect(activityOf(call('Bash', { command: 'npm test\nnpm run lint', description: 'Run tests' }))).toBe(
      'Bash: npm test',
    );
    expect(
      activityOf(
        call('Edit', { file_path: '/work/board/src/app.ts', old_string: 'a', new_string: 'b' }),
        '/work/board',
      ),
    ).toBe('Edit: src/app.ts');
    expect(activityOf(call('Edit', { file_path: '/elsewhere/app.ts' }), '/work/board')).toBe('Edit: /elsewhere/app.ts');
    expect(activityOf(call('TodoWrite', { todos: [] }))).toBe('TodoWrite');
    expect(
      activityOf(
        json({
          type: 'item.started',
          item: { id: 'i', type: 'command_execution', command: 'bash -lc "npm test"', status: 'in_progress' },
        }),
      ),
    ).toBe('Shell: bash -lc "npm test"');
    expect(
      activityOf(
        json({
          type: 'item.completed',
          item: { id: 'i', type: 'command_execution', command: 'npm test', aggregated_output: 'ok', exit_code: 0 },
        }),
      ),
    ).toBeUndefined();
    expect(
      activityOf(
        json({ type: 'tool_use', tool_name: 'run_shell_command', tool_id: 't', parameters: { command: 'ls' } }),
      ),
    ).toBe('run_shell_command: ls');
  });

  it('shows the first non-blank line of text, and nothing for thinking or reasoning', () => {
    expect(
      activityOf(
        json({
          type: 'assistant',
          message: { content: [{ type: 'text', text: '\n\nLooking at the tests.\nThen more.' }] },
        }),
      ),
    ).toBe('Looking at the tests.');
    expect(
      activityOf(json({ type: 'assistant', message: { content: [{ type: 'thinking', thinking: 'hmm' }] } })),
    ).toBeUndefined();
    expect(
      activityOf(json({ type: 'item.completed', item: { id: 'r', type: 'reasoning', text: 'hmm' } })),
    ).toBeUndefined();
  });

  it('returns a line that is not JSON as it is, and nothing for a blank line', () => {
    expect(activityOf('Compiling 12 files…')).toBe('Compiling 12 files…');
    expect(activityOf('{not json')).toBe('{not json');
    expect(activityOf('   ')).toBeUndefined();
    expect(activityOf('{"status":"ok","message":"a reply of its own"}')).toBeUndefined();
  });

  it('never parses a line longer than 256 KiB; what it shows is cut to 300 characters after masking', () => {
    const huge = json({ type: 'assistant', message: { content: [{ type: 'text', text: 'x'.repeat(300 * 1024) }] } });
    expect(activityOf(huge)).toBeUndefined();
    // Whole: the run masks it, then cuts it (run/open-run.ts), so no cut splits a secret.
    const shown = activityOf(
      json({ type: 'assistant', message: { content: [{ type: 'text', text: 'z'.repeat(1000) }] } }),
    );
    expect(shown).toHaveLength(1000);
    expect(maskedHead(shown ?? '', SHOWN_MAX)).toHaveLength(300);
    expect(maskedHead(`${'y'.repeat(290)} SECRET-VALUE-1234 more`, SHOWN_MAX, ['SECRET-VALUE-1234'])).toBe(
      `${'y'.repeat(290)} …`,
    );
  });

  it('reads a line of a tool result without parsing it', () => {
    const result = json({
      type: 'user',
      message: { content: [{ type: 'tool_result', content: 'x'.repeat(100_000) }] },
    });
    const started = performance.now();
    for (let i = 0; i < 1000; i++) activityOf(result);
    expect(performance.now() - started).toBeLessThan(200);
    expect(activityOf(result)).toBeUndefined();
  });

  it("reads a known CLI's lines with its own adapter only: another CLI's event shows nothing", () => {
    const codexCall = json({
      type: 'item.started',
      item: { id: 'i', type: 'command_execution', command: 'npm test', status: 'in_progress' },
    });
    expect(activityWith(codexCall, agentFor(['codex', 'exec']))).toBe('Shell: npm test');
    expect(activityWith(codexCall, agentFor(['claude', '-p']))).toBeUndefined();
    expect(activityWith('Compiling…', agentFor(['claude', '-p']))).toBe('Compiling…');
  });
});
