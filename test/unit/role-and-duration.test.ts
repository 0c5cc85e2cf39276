import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildInvocation } from '../../src/agent/invocation.js';
import { fillPlaceholders } from '../../src/board/inputs.js';
import { formatDuration, LONGEST_MS, parseDuration, readDuration } from '../../src/util/duration.js';
import { determineRole } from '../../src/board/determine-role.js';
import { loadRole, parseRole, type Role } from '../../src/board/role.js';
import { makeBoard } from '../helpers.js';

describe('determineRole', () => {
  it.each([
    [{ phase: 'design' }, {}, 'Architect'],
    [{ phase: 'plan' }, {}, 'Manager'],
    [{ phase: 'execute', sub_phase: 'review' }, {}, 'Architect'],
    [{ phase: 'execute' }, {}, 'Implementor'],
    [{ phase: 'validate' }, {}, 'Architect'],
    [{ phase: 'something-else' }, {}, 'Implementor'],
    [{}, {}, 'Implementor'],
    [{ phase: 'design' }, { role: 'Tester' }, 'Tester'],
  ])('maps board %j and task %j to %s', (board, task, expected) => {
    expect(determineRole(board, task)).toBe(expected);
  });
});

describe('parseDuration', () => {
  it.each([
    ['90s', 90_000],
    ['20m', 1_200_000],
    ['1h30m', 5_400_000],
    ['500ms', 500],
    ['1.5s', 1500],
    [30, 30_000],
    ['45', 45_000],
    ['2d', 172_800_000],
    ['24d', 2_073_600_000],
  ])('reads %j as %i ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(['', 'soon', '5 minutes', '-1s', '0', '0.4ms', '3m junk', null, {}, '25d', '9999999999999h', 1e300])(
    'refuses %j',
    (text) => {
      expect(parseDuration(text)).toBeNull();
    },
  );

  it('holds one Node timer (2^31-1 ms) at most, or a year for a budget counted on the clock', () => {
    expect(LONGEST_MS.timer).toBeLessThanOrEqual(2 ** 31 - 1);
    expect(parseDuration('30d', LONGEST_MS.clock)).toBe(30 * 86_400_000);
    expect(readDuration('30d', LONGEST_MS.clock)).toEqual({ ms: 30 * 86_400_000 });
    expect(readDuration('30d', LONGEST_MS.clock)).toEqual({ ms: 30 * 86_400_000 });
    expect(readDuration('9999999999999h', LONGEST_MS.clock)).toEqual({
      mustBe: 'a duration from 1ms to 365d (got "9999999999999h")',
    });
    expect(readDuration('30d')).toEqual({ mustBe: 'a duration from 1ms to 24d (got "30d")' });
    expect(readDuration(`${'9'.repeat(400)}h`)).toMatchObject({ mustBe: /^a duration from 1ms to 24d/ });
    expect(readDuration('soon')).toEqual({ mustBe: 'a duration like 90s, 20m or 1h30m (got "soon")' });
  });

  it('formats durations for people', () => {
    expect([850, 12_300, 245_000, 3_720_000].map(formatDuration)).toEqual(['850ms', '12.3s', '4m05s', '1h02m']);
  });
});

describe('role files and invocations', () => {
  const role = parseRole(
    'roles/implementor.md',
    'Implementor',
    '---\ncommand: [agent, -p, "{{prompt}}", "--task={{task_file}}"]\nstdin: none\nenv: {DEBUG: 1}\n---\n' +
      'Do {{ task_file }} for {{role}}.\n',
  ).role as Role;
  const place = {
    boardDir: '/board',
    env: { PATH: '/bin' },
    limits: { timeoutMs: 1000, idleTimeoutMs: null, killGraceMs: 5000 },
    tag: 'run/1/Implementor',
  };

  it('fills placeholders into argv elements without ever building a shell string', () => {
    const invocation = buildInvocation(
      role,
      { role: 'Implementor', kanban_file: 'kanban.yaml', task_file: 'tasks/$(rm -rf x).md' },
      place,
    );
    expect(invocation.file).toBe('agent');
    expect(invocation.args).toEqual([
      '-p',
      'Do tasks/$(rm -rf x).md for Implementor.\n',
      '--task=tasks/$(rm -rf x).md',
    ]);
    expect(invocation.stdin).toBeNull();
    expect(invocation.env).toMatchObject({
      PATH: '/bin',
      DEBUG: '1',
      KANBAN_ROLE: 'Implementor',
      KANBAN_TASK_FILE: 'tasks/$(rm -rf x).md',
      KANBAN_DONE_TASK: '',
    });
    expect(invocation.cwd).toBe('/board');
  });

  it('renders non-string inputs as JSON and absent ones as empty', () => {
    expect(
      fillPlaceholders('{{tasks}}|{{done_task}}|{{result}}', { tasks: ['a', 'b'], result: { status: 'ok' } }, 'r'),
    ).toBe('["a","b"]||{"status":"ok"}');
  });

  it('explains that placeholders must be quoted inside a YAML flow list', () => {
    expect(parseRole('roles/x.md', 'X', '---\ncommand: [agent, {{prompt}}]\n---\nx\n').problems[0]?.message).toMatch(
      /Quote argv elements that contain \{\{placeholders\}\}/,
    );
  });

  it('defaults stdin to the prompt and output to auto', () => {
    const plain = parseRole('roles/x.md', 'X', '---\ncommand: [x]\n---\nHello\n').role;
    expect(plain).toMatchObject({ stdin: 'prompt', output: 'auto', prompt: 'Hello\n' });
  });

  it('returns every problem of a role file at once, each with its line, "did you mean" for a misspelled key', () => {
    const check = parseRole(
      'roles/x.md',
      'X',
      '---\ncommand: claude\nstdin: pipe\ntimout: 1s\nidle_timeout: soon\n---\nx\n',
    );
    expect(check.role).toBeUndefined();
    expect(check.problems.map((p) => `${p.line}: ${p.message}`)).toEqual([
      expect.stringMatching(/^4: front-matter has an unknown key "timout"\. Did you mean timeout\?$/),
      expect.stringMatching(/^2: front-matter command must be an array/),
      expect.stringMatching(/^3: front-matter stdin must be one of prompt, json, none/),
      expect.stringMatching(/^5: front-matter idle_timeout must be a duration/),
    ]);
  });

  it('refuses a timeout past what one timer holds, naming the line and the range', () => {
    const check = parseRole('roles/x.md', 'X', '---\ncommand: [x]\ntimeout: 99999999d\n---\nx\n');
    expect(check.problems.map((p) => `${p.file}:${p.line}: ${p.message}`)).toEqual([
      'roles/x.md:3: front-matter timeout must be a duration from 1ms to 24d (got "99999999d").',
    ]);
  });
});

describe('loadRole', () => {
  it('reads the role file every time, so an edit between steps takes effect', () => {
    const dir = makeBoard({ 'roles/worker.md': '---\ncommand: [a]\n---\nOne\n' });
    expect(loadRole(dir, 'Worker', 'the test')).toMatchObject({ command: ['a'], prompt: 'One\n' });
    writeFileSync(path.join(dir, 'roles/worker.md'), '---\ncommand: [b]\n---\nTwo\n');
    expect(loadRole(dir, 'Worker', 'the test')).toMatchObject({ command: ['b'], prompt: 'Two\n' });
    writeFileSync(path.join(dir, 'roles/worker.md'), '---\ncommand: b\n---\n');
    expect(() => loadRole(dir, 'Worker', 'the test')).toThrow(/roles\/worker\.md:2: front-matter/);
  });
});
