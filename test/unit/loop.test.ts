import { EventEmitter } from 'node:events';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunAttempt } from '../../src/agent/attempt.js';
import type { Invocation } from '../../src/agent/invocation.js';
import { supervise } from '../../src/run/supervise.js';
import { boardWithTasks, read, role } from '../helpers.js';
import { exited } from './fake-agents.js';

/** What a fake agent prints: a reply object, or raw text (garbage). */
type Script = Array<Record<string, unknown> | string>;

/**
 * The attempt runner of a test: each role prints the next item of its script; the Manager,
 * unless scripted, answers like the sequential Manager (the task after the done one). Every
 * invocation is kept, to check that retries repeat the very same one.
 */
function fakeAgents(scripts: Record<string, Script>) {
  const calls: Invocation[] = [];
  const runAttempt: RunAttempt = async (invocation) => {
    calls.push(invocation);
    const script = scripts[invocation.role];
    const next = script?.shift();
    if (next !== undefined) return exited(typeof next === 'string' ? next : JSON.stringify(next));
    if (invocation.role !== 'Manager') return exited(JSON.stringify({ status: 'ok', message: 'done' }));
    const input = JSON.parse(invocation.env.KANBAN_INPUT ?? '{}') as { done_task: string; tasks: string[] };
    const after = input.tasks[input.tasks.indexOf(input.done_task) + 1] ?? null;
    return exited(
      JSON.stringify({
        status: 'ok',
        message: 'next',
        next_task: after,
        tasks: input.tasks,
        ...(after === null && { phase: 'complete' }),
      }),
    );
  };
  return { calls, runAttempt };
}

function board(tasks: number, settings = '') {
  const dir = boardWithTasks(
    tasks,
    { 'roles/implementor.md': role(['node'], 'stdin: json\n'), 'roles/manager.md': role(['node'], 'stdin: json\n') },
    `phase: execute\n${settings ? `supervisor:\n${settings}` : ''}`,
  );
  return { dir, file: path.join(dir, 'kanban.yaml') };
}

const quiet = () => ({ signals: new EventEmitter() });

describe('the loop through a fake attempt runner', () => {
  it('runs every task, then the Manager, writes each answer and ends when there is no next task', async () => {
    const { dir, file } = board(3);
    const { calls, runAttempt } = fakeAgents({});
    const result = await supervise({ file, seams: { runAttempt, ...quiet() } });
    expect(result).toMatchObject({ steps: 3, reason: 'done', current: null, phase: 'complete' });
    expect(calls.map((c) => `${c.role}:${c.task}`)).toEqual([
      'Implementor:tasks/001.md',
      'Manager:tasks/001.md',
      'Implementor:tasks/002.md',
      'Manager:tasks/002.md',
      'Implementor:tasks/003.md',
      'Manager:tasks/003.md',
    ]);
    expect(read(dir, 'kanban.yaml')).toMatch(/^current: null$/m);
  });

  it('retries invalid output with the same invocation, logs each retry, and takes the first valid reply', async () => {
    const { dir, file } = board(1);
    const { calls, runAttempt } = fakeAgents({
      Implementor: ['garbage', '{"status": "maybe", "message": "x"}', { status: 'ok', message: 'third time' }],
    });
    await supervise({ file, seams: { runAttempt, ...quiet() } });
    const worker = calls.filter((c) => c.role === 'Implementor');
    expect(worker).toHaveLength(3);
    expect(worker[1]).toBe(worker[0]);
    expect(worker[2]).toBe(worker[0]);
    expect(read(dir, 'supervisor.log.md').match(/### .* Retry Event/g)).toHaveLength(2);
  });

  it('halts with exit 3 after max_retries, leaving the board as it was', async () => {
    const { dir, file } = board(2, '  max_retries: 2\n');
    const before = read(dir, 'kanban.yaml');
    const { calls, runAttempt } = fakeAgents({ Implementor: ['x', 'y', 'z', 'never reached'] });
    await expect(supervise({ file, seams: { runAttempt, ...quiet() } })).rejects.toMatchObject({ exitCode: 3 });
    expect(calls.filter((c) => c.role === 'Implementor')).toHaveLength(3);
    expect(calls.filter((c) => c.role === 'Manager')).toHaveLength(0);
    expect(read(dir, 'kanban.yaml')).toBe(before);
  });

  it('halts for a person with exit 4 once the Manager answers other than ok, its answer written', async () => {
    const { dir, file } = board(2);
    const { runAttempt } = fakeAgents({
      Manager: [
        {
          status: 'escalate',
          message: 'need a human',
          next_task: 'tasks/002.md',
          tasks: ['tasks/001.md', 'tasks/002.md'],
        },
      ],
    });
    await expect(supervise({ file, seams: { runAttempt, ...quiet() } })).rejects.toMatchObject({
      exitCode: 4,
      message: expect.stringContaining('need a human'),
    });
    expect(read(dir, 'kanban.yaml')).toMatch(/^current: tasks\/002\.md$/m);
  });

  it(
    'stops with exit 5 at max_steps, and when the Manager ' +
      'picks the same task after ok replies max_same_task times',
    async () => {
      const going = board(2, '  max_steps: 3\n');
      const round = {
        status: 'ok',
        message: 'again',
        next_task: 'tasks/001.md',
        tasks: ['tasks/001.md', 'tasks/002.md'],
      };
      const other = { ...round, next_task: 'tasks/002.md' };
      await expect(
        supervise({
          file: going.file,
          seams: { ...fakeAgents({ Manager: [other, round, other, round] }), ...quiet() },
        }),
      ).rejects.toMatchObject({ exitCode: 5, message: expect.stringContaining('max_steps (3)') });

      const stuck = board(2, '  max_same_task: 2\n');
      await expect(
        supervise({ file: stuck.file, seams: { ...fakeAgents({ Manager: [round, round, round] }), ...quiet() } }),
      ).rejects.toMatchObject({ exitCode: 5, message: expect.stringContaining('picked tasks/001.md again 2 times') });
    },
  );

  it('runs one step with --once and says so', async () => {
    const { file } = board(3);
    const { calls, runAttempt } = fakeAgents({});
    expect(await supervise({ file, flags: { once: true }, seams: { runAttempt, ...quiet() } })).toMatchObject({
      steps: 1,
      reason: 'once',
      current: 'tasks/002.md',
    });
    expect(calls).toHaveLength(2);
  });

  it('stops between attempts on a signal, without starting another one', async () => {
    const { file } = board(1);
    const signals = new EventEmitter();
    const { calls, runAttempt } = fakeAgents({ Implementor: ['garbage', 'garbage'] });
    const interrupting: RunAttempt = async (invocation, output, ctx) => {
      const result = await runAttempt(invocation, output, ctx);
      signals.emit('SIGTERM', 'SIGTERM');
      return result;
    };
    await expect(supervise({ file, seams: { runAttempt: interrupting, signals } })).rejects.toMatchObject({
      exitCode: 143,
    });
    expect(calls).toHaveLength(1);
  });
});
