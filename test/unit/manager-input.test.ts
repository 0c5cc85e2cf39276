import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildInvocation } from '../../src/agent/invocation.js';
import type { AgentInputs } from '../../src/board/inputs.js';
import { parseRole, type Role } from '../../src/board/role.js';
import { ROOT } from '../helpers.js';

// A board's task paths as people name them: tasks/00001-add-the-health-endpoint.md, 38 bytes each.
const tasks = (n: number) =>
  Array.from({ length: n }, (_, i) => `tasks/${String(i + 1).padStart(5, '0')}-add-the-health-endpoint.md`);

// 50 recent steps of ~700 bytes: the most the history capability hands the Manager (step-history.ts).
const HISTORY = Array.from({ length: 50 }, (_, i) => ({
  step: i + 1,
  task: `tasks/${String(i + 1).padStart(5, '0')}-add-the-health-endpoint.md`,
  role: 'Implementor',
  status: 'ok',
  attempts: 1,
  message: 'x'.repeat(160),
  invalid: ['y'.repeat(160), 'z'.repeat(160)],
  limit_waits: 0,
  manager: { status: 'ok', next_task: 'tasks/00002-add-the-health-endpoint.md' },
}));

function managerRun(preset: string, count: number) {
  const file = path.join(ROOT, 'presets', preset, 'manager.md');
  const role = parseRole('roles/manager.md', 'Manager', readFileSync(file, 'utf8')).role as Role;
  const list = tasks(count);
  const inputs: AgentInputs = {
    role: 'Manager',
    kanban_file: 'kanban.yaml',
    done_task: list[count - 2] as string,
    tasks: list,
    result: { status: 'blocked', message: 'Which port should it listen on? '.repeat(10) },
    history: HISTORY,
  };
  const invocation = buildInvocation(role, inputs, {
    boardDir: '/board',
    env: { PATH: '/usr/bin' },
    limits: { timeoutMs: 60_000, idleTimeoutMs: null, killGraceMs: 5_000 },
    tag: 'test',
  });
  const argv = [invocation.file, ...invocation.args].reduce((n, arg) => n + Buffer.byteLength(arg) + 1, 0);
  return { invocation, argv, stdin: invocation.stdin?.length ?? 0, env: invocation.env.KANBAN_INPUT?.length ?? 0 };
}

describe('what the Manager gets on a board of 10,000 tasks', () => {
  it.each(['claude', 'codex'])(
    '%s: the prompt goes on stdin, its size does not grow with the task list, and argv stays small',
    (preset) => {
      const small = managerRun(preset, 20);
      const large = managerRun(preset, 10_000);
      // The same prompt on 20 and 10,000 tasks (the task list is kanban.yaml's, which the model reads as it needs):
      // 3.6 KiB with no history, 38 KiB with the most the Manager is given (50 steps). No argument holds it:
      // no 128 KiB ceiling. On 4617305 the list was in the prompt, in argv: ~400 KB here, past the ceiling.
      expect(large.stdin).toBe(small.stdin);
      expect(large.stdin).toBeGreaterThan(4 * 1024);
      expect(large.stdin).toBeLessThan(48 * 1024);
      expect(large.argv).toBeLessThan(1024);
      expect(large.invocation.stdin?.toString()).not.toContain('tasks/05000-');
      // KANBAN_INPUT (for the sequential Manager in front of the model) keeps the result, leaves the list
      // out with a note, and stays within its 64 KiB.
      const env = JSON.parse(large.invocation.env.KANBAN_INPUT as string) as Record<string, unknown>;
      expect(env).toMatchObject({ result: { status: 'blocked' }, done_task: expect.any(String) });
      expect(env.tasks).toBeUndefined();
      expect(env.tasks_omitted).toBe(
        '10000 task(s), over the 64 KiB of KANBAN_INPUT: they are the tasks of kanban.yaml',
      );
      expect(large.env).toBeLessThanOrEqual(64 * 1024);
    },
  );

  it('the shipped sequential Manager (stdin: json) gets the whole list on stdin: 10,000 tasks are ~0.4 MB, no model tokens', () => {
    const role = parseRole(
      'roles/manager.md',
      'Manager',
      readFileSync(path.join(ROOT, 'presets', 'shell', 'manager.md'), 'utf8'),
    ).role as Role;
    const list = tasks(10_000);
    const invocation = buildInvocation(
      role,
      {
        role: 'Manager',
        kanban_file: 'kanban.yaml',
        done_task: list[0] as string,
        tasks: list,
        result: { status: 'ok' },
      },
      {
        boardDir: '/board',
        env: {},
        limits: { timeoutMs: 60_000, idleTimeoutMs: null, killGraceMs: 5_000 },
        tag: 'test',
      },
    );
    const bytes = invocation.stdin?.length ?? 0;
    expect(bytes).toBeGreaterThan(380_000);
    expect(bytes).toBeLessThan(420_000);
  });
});
