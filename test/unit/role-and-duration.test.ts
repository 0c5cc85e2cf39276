import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildInvocation } from '../../src/agent/invocation.js';
import { fillPlaceholders } from '../../src/board/inputs.js';
import { formatDuration, parseDuration } from '../../src/util/duration.js';
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
  ])('reads %j as %i ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(['', 'soon', '5 minutes', '-1s', '0', '1d', '3m junk', null, {}])('refuses %j', (text) => {
    expect(parseDuration(text)).toBeNull();
  });

  it('formats durations for people', () => {
    expect([850, 12_300, 245_000, 3_720_000].map(formatDuration)).toEqual(['850ms', '12.3s', '4m05s', '1h02m']);
  });
});

describe('role files and invocations', () => {
  const role = parseRole(
    'roles/implementor.md',
    'Implementor',
    '---\ncommand: [agent, -p, "{{prompt}}", "--task={{task_file}}"]\nstdin: none\nenv: {DEBUG: 1}\n---\nDo {{ task_file }} for {{role}}.\n',
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

  it('returns every problem of a role file at once, each with its line, and "did you mean" for a misspelled key', () => {
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
