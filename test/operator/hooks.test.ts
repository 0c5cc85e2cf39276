import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { splitWords } from '../../src/hooks/split-words.js';
import { boardWithTasks, fixtureRole, read, runCli } from '../helpers.js';
import { jsonLines } from './snapshot.js';

const HOOK = path.join(import.meta.dirname, 'fixtures', 'record-hook.mjs');

describe('--on-complete and --on-halt', () => {
  it(
    'runs the --on-complete command as argv in the board folder with the outcome in KANBAN_* variables, ' +
      'and not --on-halt',
    async () => {
      const dir = boardWithTasks(2, { 'roles/implementor.md': fixtureRole('scripted.mjs', ['/dev/null']) });
      const record = path.join(dir, 'hook.jsonl');
      const result = await runCli([
        path.join(dir, 'kanban.yaml'),
        '--on-complete',
        `node ${HOOK} ${record} 'two words' "a \\"quoted\\" one" $HOME`,
        '--on-halt',
        `node ${HOOK} ${record} halted`,
      ]);
      expect(result.exitCode).toBe(0);
      const calls = jsonLines(readFileSync(record, 'utf8'));
      expect(calls).toHaveLength(1);
      const [call] = calls as Array<{ argv: string[]; cwd: string; env: Record<string, string> }>;
      // No shell: quotes group words, and $HOME stays literal.
      expect(call?.argv).toEqual([record, 'two words', 'a "quoted" one', '$HOME']);
      expect(call?.cwd).toBe(dir);
      const run = jsonLines(read(dir, '.kanban-supervisor/events.jsonl'))[0]?.run;
      expect(call?.env).toEqual({
        KANBAN_OUTCOME: 'done',
        KANBAN_EXIT_CODE: '0',
        KANBAN_MESSAGE: expect.stringMatching(/^Done: the board has no next task \(2 step\(s\), /),
        KANBAN_FILE: path.join(dir, 'kanban.yaml'),
        KANBAN_RUN: run,
        KANBAN_STEPS: '2',
        KANBAN_TASK: 'tasks/002.md',
        // The hook is tagged like an agent, so whatever it starts is stopped with it.
        KANBAN_SUPERVISOR_TAG: expect.stringMatching(/^ks1-[0-9a-f]{16}-0-hook$/),
      });
    },
  );

  it('runs --on-halt when retries run out, with the exit code, the task and the message the person sees', async () => {
    const dir = boardWithTasks(2, { 'roles/implementor.md': fixtureRole('scripted.mjs', ['/dev/null', 'garbage']) });
    const record = path.join(dir, 'hook.jsonl');
    const result = await runCli([
      path.join(dir, 'kanban.yaml'),
      '--max-retries',
      '1',
      '--on-halt',
      `node ${HOOK} ${record}`,
      '--on-complete',
      `node ${HOOK} ${record} done`,
    ]);
    expect(result.exitCode).toBe(3);
    const [call] = jsonLines(readFileSync(record, 'utf8')) as Array<{ env: Record<string, string> }>;
    expect(call?.env).toMatchObject({
      KANBAN_OUTCOME: 'retries_exhausted',
      KANBAN_EXIT_CODE: '3',
      KANBAN_STEPS: '1',
      KANBAN_TASK: 'tasks/001.md',
    });
    expect(`kanban-supervisor: ${call?.env.KANBAN_MESSAGE}`).toBe(result.stderr);
  });

  it(
    'refuses a hook whose program does not exist before running anything, ' +
      'and warns without changing the exit code when a hook fails',
    async () => {
      const dir = boardWithTasks(1, { 'roles/implementor.md': fixtureRole('scripted.mjs', ['/dev/null']) });
      const before = read(dir, 'kanban.yaml');
      const missing = await runCli([path.join(dir, 'kanban.yaml'), '--on-halt', 'notify-sendd "board halted"']);
      expect(missing.exitCode).toBe(2);
      expect(missing.stderr).toBe(
        'kanban-supervisor: --on-halt: the command "notify-sendd" was not found on PATH. ' +
          'Install it or fix the --on-halt command (it is run as argv, not through a shell).',
      );
      expect(existsSync(path.join(dir, '.kanban-supervisor'))).toBe(false);
      expect(read(dir, 'kanban.yaml')).toBe(before);

      const unclosed = await runCli([path.join(dir, 'kanban.yaml'), '--on-complete', "say 'hi"]);
      expect(unclosed.exitCode).toBe(2);
      expect(unclosed.stderr).toMatch(/^kanban-supervisor: --on-complete "say 'hi" has an unclosed ' quote\./);

      writeFileSync(path.join(dir, 'fail.mjs'), 'process.exit(9)\n');
      const failing = await runCli([path.join(dir, 'kanban.yaml'), '--on-complete', 'node fail.mjs']);
      expect(failing.exitCode).toBe(0);
      expect(failing.stderr).toBe('kanban-supervisor: warning: --on-complete command (node fail.mjs) failed (exit 9).');
    },
  );
});

describe('splitting a hook command into argv', () => {
  it.each([
    ['notify-send done', ['notify-send', 'done']],
    ["  a   'b c'  ", ['a', 'b c']],
    ['a "b \\" \\\\ c" d', ['a', 'b " \\ c', 'd']],
    ["'' x", ['', 'x']],
    ['a\\ b c', ['a b', 'c']],
    ['it\'s\\\' "$X|y>z"', ['its\\', '$X|y>z']],
  ])('splits %j like a shell splits words, without expanding anything', (text, words) => {
    expect(splitWords(text)).toEqual({ ok: true, words });
  });

  it.each([
    ['', 'is empty'],
    ['a "b', 'has an unclosed " quote'],
    ['a b\\', 'ends with a lone backslash'],
  ])('refuses %j because it %s', (text, reason) => {
    expect(splitWords(text)).toEqual({ ok: false, reason });
  });
});
