import { EventEmitter } from 'node:events';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunAttempt } from '../../src/agent/attempt.js';
import type { Invocation } from '../../src/agent/invocation.js';
import { supervise } from '../../src/run/supervise.js';
import { boardWithTasks, events, read, role } from '../helpers.js';
import { fakeWatcher, fakeWorld } from './fake-world.js';
import { exited } from './fake-agents.js';

type Reply = Record<string, unknown> | string;

function inputOf(invocation: Invocation): Record<string, unknown> {
  return JSON.parse(invocation.env.KANBAN_INPUT ?? '{}') as Record<string, unknown>;
}

/**
 * Fake agents: each role prints the next item of its script (then ok); the Manager, unless
 * scripted, moves to the task after the done one whatever the reply said, and after a periodic
 * role keeps the board's current task. Every invocation is kept.
 */
function agents(scripts: Record<string, Reply[]> = {}) {
  const calls: Invocation[] = [];
  const runAttempt: RunAttempt = async (invocation) => {
    calls.push(invocation);
    const next = scripts[invocation.role]?.shift();
    if (next !== undefined)
      return typeof next === 'string' && next.startsWith('stderr:')
        ? exited('', next.slice(7))
        : exited(typeof next === 'string' ? next : JSON.stringify(next));
    if (invocation.role !== 'Manager')
      return exited(JSON.stringify({ status: 'ok', message: `${invocation.role} did it` }));
    const input = inputOf(invocation) as { done_task: string | null; tasks: string[] };
    const current = /^current: (.*)$/m.exec(readFileSync(path.join(invocation.cwd, 'kanban.yaml'), 'utf8'))?.[1];
    const after =
      input.done_task === null
        ? current === 'null'
          ? null
          : (current ?? null)
        : (input.tasks[input.tasks.indexOf(input.done_task) + 1] ?? null);
    return exited(JSON.stringify({ status: 'ok', message: 'next', next_task: after, tasks: input.tasks }));
  };
  return { calls, runAttempt, of: (name: string) => calls.filter((c) => c.role === name) };
}

function board(tasks: number, settings: string, header = 'phase: execute\n') {
  const node = role(['node'], 'stdin: json\n');
  const dir = boardWithTasks(
    tasks,
    { 'roles/implementor.md': node, 'roles/manager.md': node, 'roles/reviewer.md': node },
    `${header}supervisor:\n${settings}`,
  );
  return { dir, file: path.join(dir, 'kanban.yaml') };
}

describe('failures handed to the Manager (on_exhausted: manager)', () => {
  it(
    'gives the Manager {"status": "error"} naming the role, task, attempts and last issue; ' +
      'its answer is applied and the run goes on',
    async () => {
      const { dir, file } = board(2, '  max_retries: 1\n  on_exhausted: manager\n');
      const fake = agents({ Implementor: ['garbage', '{"status": "maybe", "message": "x"}'] });
      const result = await supervise({ file, seams: { runAttempt: fake.runAttempt, signals: new EventEmitter() } });
      expect(result).toMatchObject({ steps: 2, reason: 'done', current: null });
      const [first] = fake.of('Manager').map(inputOf);
      expect(first?.result).toEqual({
        status: 'error',
        message:
          'Implementor gave no valid reply for tasks/001.md in 2 attempts: replied in the wrong format: ' +
          '/status must be one of ok, blocked, error, escalate (got "maybe")',
      });
      expect(first?.done_task).toBe('tasks/001.md');
      expect(events(dir).filter((e) => e.type === 'handed_to_manager')).toEqual([
        expect.objectContaining({ step: 1, role: 'Implementor', task: 'tasks/001.md', attempts: 2 }),
      ]);
      expect(events(dir).some((e) => e.type === 'halted')).toBe(false);
      expect(read(dir, 'supervisor.log.md')).toMatch(
        /Retries Exhausted[\s\S]*\*\*Action:\*\* Handing the Manager \{"status": "error"\}/,
      );
    },
  );

  it('still halts with exit 3 when the Manager itself runs out of retries, and by default (halt)', async () => {
    const handing = board(1, '  max_retries: 0\n  on_exhausted: manager\n');
    await expect(
      supervise({
        file: handing.file,
        seams: { runAttempt: agents({ Manager: ['garbage'] }).runAttempt, signals: new EventEmitter() },
      }),
    ).rejects.toMatchObject({ exitCode: 3 });
    const halting = board(1, '  max_retries: 0\n');
    await expect(
      supervise({
        file: halting.file,
        seams: { runAttempt: agents({ Implementor: ['garbage'] }).runAttempt, signals: new EventEmitter() },
      }),
    ).rejects.toMatchObject({ exitCode: 3 });
  });

  it('keeps the loop guards: a Manager that retries a failing task forever stops at max_steps', async () => {
    const { file } = board(1, '  max_retries: 0\n  on_exhausted: manager\n  max_steps: 3\n');
    const again = { status: 'ok', message: 'try again', next_task: 'tasks/001.md', tasks: ['tasks/001.md'] };
    const fake = agents({ Implementor: ['x', 'x', 'x', 'x'], Manager: [again, again, again, again] });
    await expect(
      supervise({ file, seams: { runAttempt: fake.runAttempt, signals: new EventEmitter() } }),
    ).rejects.toMatchObject({
      exitCode: 5,
      message: expect.stringContaining('max_steps (3)'),
    });
    expect(fake.of('Implementor')).toHaveLength(3);
  });
});

describe('periodic roles (supervisor.periodic)', () => {
  it(
    'runs each listed role after every N-th completed step, in order, its reply untouched to the Manager with ' +
      'done_task null and trigger',
    async () => {
      const { dir, file } = board(
        4,
        '  periodic:\n    - {role: Reviewer, every: 2}\n    - {role: Implementor, every: 4}\n',
      );
      const review = { status: 'ok', message: 'two things to tidy', findings: [{ file: 'a.ts', note: 'long' }] };
      const fake = agents({ Reviewer: [review] });
      await supervise({ file, seams: { runAttempt: fake.runAttempt, signals: new EventEmitter() } });
      const steps = events(dir)
        .filter((e) => e.type === 'step_started')
        .map((e) => `${String(e.step)}:${String(e.role)}:${String(e.trigger ?? e.task)}`);
      expect(steps).toEqual([
        '1:Implementor:tasks/001.md',
        '2:Implementor:tasks/002.md',
        '3:Reviewer:Reviewer',
        '4:Implementor:tasks/003.md',
        '5:Implementor:tasks/004.md',
        '6:Reviewer:Reviewer',
        '7:Implementor:Implementor',
      ]);
      expect(fake.of('Reviewer').map(inputOf)).toEqual([
        {
          role: 'Reviewer',
          kanban_file: 'kanban.yaml',
          tasks: ['tasks/001.md', 'tasks/002.md', 'tasks/003.md', 'tasks/004.md'],
          done_tasks: ['tasks/001.md', 'tasks/002.md'],
        },
        {
          role: 'Reviewer',
          kanban_file: 'kanban.yaml',
          tasks: ['tasks/001.md', 'tasks/002.md', 'tasks/003.md', 'tasks/004.md'],
          done_tasks: ['tasks/003.md', 'tasks/004.md'],
        },
      ]);
      const triggered = fake.of('Manager').filter((c) => c.env.KANBAN_TRIGGER !== undefined);
      expect(triggered.map((c) => c.env.KANBAN_TRIGGER)).toEqual(['Reviewer', 'Reviewer', 'Implementor']);
      expect(inputOf(triggered[0] as Invocation)).toMatchObject({
        done_task: null,
        trigger: 'Reviewer',
        result: review,
      });
      expect(inputOf(triggered[2] as Invocation)).toMatchObject({
        done_task: null,
        trigger: 'Implementor',
        result: { status: 'ok', message: 'Implementor did it' },
      });
    },
  );

  it(
    'counts per run: a second run starts counting again, and a Manager answer other than ok after a periodic role ' +
      'halts with exit 4',
    async () => {
      const { file } = board(3, '  periodic:\n    - {role: Reviewer, every: 2}\n');
      const first = agents();
      await supervise({
        file,
        flags: { once: true },
        seams: { runAttempt: first.runAttempt, signals: new EventEmitter() },
      });
      const tasks = ['tasks/001.md', 'tasks/002.md', 'tasks/003.md'];
      const second = agents({
        Manager: [
          { status: 'ok', message: 'next', next_task: 'tasks/003.md', tasks },
          { status: 'ok', message: 'all done', next_task: null, tasks },
          {
            status: 'escalate',
            message: 'the review found a security hole',
            next_task: 'tasks/003.md',
            tasks: ['tasks/001.md', 'tasks/002.md', 'tasks/003.md'],
          },
        ],
      });
      await expect(
        supervise({ file, seams: { runAttempt: second.runAttempt, signals: new EventEmitter() } }),
      ).rejects.toMatchObject({
        exitCode: 4,
        message: expect.stringContaining("after Reviewer's periodic run: the review found a security hole"),
      });
      expect(first.of('Reviewer')).toHaveLength(0);
      expect(second.of('Reviewer')).toHaveLength(1);
      expect(inputOf(second.of('Reviewer')[0] as Invocation).done_tasks).toEqual(['tasks/002.md', 'tasks/003.md']);
    },
  );
});

describe("the Manager's history", () => {
  it('is the same on every Manager retry, and holds this step with its invalid attempts and limit waits', async () => {
    const { file } = board(1, '  max_retries: 2\n');
    const limit = role(['node'], 'stdin: json\nfailures:\n  usage_limit: ["^limit reached$"]\n');
    writeFileSync(path.join(path.dirname(file), 'roles/implementor.md'), limit);
    const fake = agents({ Implementor: ['stderr:limit reached', 'garbage'], Manager: ['garbage'] });
    await supervise({
      file,
      seams: { runAttempt: fake.runAttempt, clock: fakeWorld().clock, signals: new EventEmitter() },
    });
    const [one, two] = fake.of('Manager');
    expect(two).toBe(one); // the very same invocation, history included
    expect(inputOf(one as Invocation).history).toEqual([
      expect.objectContaining({
        step: 1,
        task: 'tasks/001.md',
        role: 'Implementor',
        status: 'ok',
        message: 'Implementor did it',
        attempts: 3,
        limit_waits: 1,
        invalid: [expect.stringMatching(/^printed no JSON reply object/)],
      }),
    ]);
  });
});

describe('a resident run (--watch) through fake agents, a fake clock and a fake watcher', () => {
  it(
    'waits on a done board holding the lock, runs a task added later (not the one already done), waits again, ' +
      'and ends with 143 on SIGTERM',
    async () => {
      const { dir, file } = board(1, '  watch_poll: 10s\n', 'phase: execute\n');
      writeFileSync(file, read(dir, 'kanban.yaml').replace('current: tasks/001.md', 'current: null'));
      const world = fakeWorld();
      const watch = fakeWatcher();
      const signals = new EventEmitter();
      const seen: Record<string, unknown>[] = [];
      world.at(3_000, () =>
        seen.push(JSON.parse(read(dir, '.kanban-supervisor/waiting.json')) as Record<string, unknown>),
      );
      world.at(20_000, () => {
        writeFileSync(path.join(dir, 'tasks/002.md'), '---\ntitle: two\n---\n');
        writeFileSync(file, 'phase: execute\ncurrent: tasks/002.md\ntasks:\n  - tasks/001.md\n  - tasks/002.md\n');
        watch.fire('kanban.yaml');
      });
      world.at(60_000, () => signals.emit('SIGTERM', 'SIGTERM'));
      const fake = agents();
      await expect(
        supervise({
          file,
          flags: { watch: true },
          seams: { watcher: watch.watcher, runAttempt: fake.runAttempt, clock: world.clock, signals },
        }),
      ).rejects.toMatchObject({ exitCode: 143 });
      expect(fake.of('Implementor').map((c) => c.task)).toEqual(['tasks/002.md']);
      expect(seen[0]).toMatchObject({
        for: 'board_change',
        outcome: 'done',
        exitCode: 0,
        reason: 'the board has no next task',
        since: '2026-11-23T20:00:00.000Z',
        pid: process.pid,
      });
      const types = events(dir)
        .map((e) => e.type)
        .filter((t) => ['waiting', 'woke', 'step_started', 'done', 'interrupted'].includes(String(t)));
      expect(types).toEqual(['done', 'waiting', 'woke', 'step_started', 'done', 'waiting', 'interrupted']);
      expect(events(dir).find((e) => e.type === 'woke')).toMatchObject({
        by: 'change',
        files: ['kanban.yaml'],
        waitedMs: 20_500,
      });
      expect(existsSync(path.join(dir, '.kanban-supervisor/waiting.json'))).toBe(false);
      expect(existsSync(path.join(dir, '.kanban-supervisor/run.lock'))).toBe(false);
    },
  );

  it(
    'waits where retries ran out (exit 3), reports an edit that does not validate yet, ' +
      'and carries on once the role file is fixed',
    async () => {
      const { dir, file } = board(1, '  max_retries: 0\n');
      const world = fakeWorld();
      const watch = fakeWatcher();
      const signals = new EventEmitter();
      world.at(10_000, () => {
        writeFileSync(path.join(dir, 'roles/implementor.md'), '---\ncommand: [node\n---\n');
        watch.fire('roles/implementor.md');
      });
      world.at(20_000, () => {
        writeFileSync(path.join(dir, 'roles/implementor.md'), role(['node'], 'stdin: none\n'));
        watch.fire('roles/implementor.md');
      });
      world.at(60_000, () => signals.emit('SIGINT', 'SIGINT'));
      const fake = agents({ Implementor: ['garbage'] });
      await expect(
        supervise({
          file,
          flags: { watch: true },
          seams: { watcher: watch.watcher, runAttempt: fake.runAttempt, clock: world.clock, signals },
        }),
      ).rejects.toMatchObject({ exitCode: 130 });
      const waits = events(dir).filter((e) => ['waiting', 'edit_invalid', 'woke'].includes(String(e.type)));
      expect(waits.map((e) => e.type)).toEqual(['waiting', 'edit_invalid', 'woke', 'waiting']);
      expect(waits[0]).toMatchObject({
        outcome: 'retries_exhausted',
        exitCode: 3,
        via: 'fs.watch',
        reason: expect.stringContaining('Implementor gave no valid reply for tasks/001.md in 1 attempt(s)'),
      });
      expect(waits[1]).toMatchObject({
        files: ['roles/implementor.md'],
        file: 'roles/implementor.md',
        line: expect.any(Number),
        problem: expect.stringMatching(/flow sequence|YAML|]/i),
      });
      expect(waits[3]).toMatchObject({ outcome: 'done' });
      expect(fake.of('Implementor')).toHaveLength(2);
    },
  );

  it('waits for a usage limit past max_limit_wait instead of ending with 69, and carries on at its reset', async () => {
    const { dir, file } = board(1, '  max_limit_wait: 1h\n');
    writeFileSync(
      path.join(dir, 'roles/implementor.md'),
      role(['node'], 'stdin: json\nfailures:\n  usage_limit: ["limit reached, resets in (?<reset>\\\\d+ ?s)"]\n'),
    );
    const world = fakeWorld();
    const signals = new EventEmitter();
    world.at(10 * 3_600_000, () => signals.emit('SIGTERM', 'SIGTERM'));
    const fake = agents({ Implementor: ['stderr:limit reached, resets in 7200s'] });
    await expect(
      supervise({
        file,
        flags: { watch: true },
        seams: { watcher: fakeWatcher().watcher, runAttempt: fake.runAttempt, clock: world.clock, signals },
      }),
    ).rejects.toMatchObject({ exitCode: 143 });
    const waiting = events(dir).find((e) => e.type === 'waiting');
    expect(waiting).toMatchObject({ outcome: 'limit_wait', exitCode: 69, until: '2026-11-23T22:00:30.000Z' });
    expect(events(dir).find((e) => e.type === 'woke')).toMatchObject({ by: 'time', files: [] });
    expect(fake.of('Implementor')).toHaveLength(2);
    expect(read(dir, 'kanban.yaml')).toMatch(/^current: null$/m);
  });

  it('waits where a missing login would end the run (exit 2), and carries on after an edit', async () => {
    const { dir, file } = board(1, '  max_retries: 1\n');
    writeFileSync(
      path.join(dir, 'roles/implementor.md'),
      role(['node'], 'stdin: json\nfailures:\n  login: ["not logged in"]\n'),
    );
    const world = fakeWorld();
    const watch = fakeWatcher();
    const signals = new EventEmitter();
    world.at(5_000, () => {
      writeFileSync(file, `${read(dir, 'kanban.yaml')}# logged in now\n`);
      watch.fire('kanban.yaml');
    });
    world.at(30_000, () => signals.emit('SIGTERM', 'SIGTERM'));
    const fake = agents({ Implementor: ['stderr:fatal: not logged in'] });
    await expect(
      supervise({
        file,
        flags: { watch: true },
        seams: { watcher: watch.watcher, runAttempt: fake.runAttempt, clock: world.clock, signals },
      }),
    ).rejects.toMatchObject({ exitCode: 143 });
    expect(events(dir).filter((e) => e.type === 'waiting')).toEqual([
      expect.objectContaining({
        outcome: 'bad_input',
        exitCode: 2,
        reason: expect.stringContaining('cannot work until someone logs in'),
      }),
      expect.objectContaining({ outcome: 'done' }),
    ]);
    expect(fake.of('Implementor')).toHaveLength(2);
  });

  it('after a budget stop, wakes only once an edit raises the budget', async () => {
    const { dir, file } = board(2, '  max_cost_usd: 1\n');
    const world = fakeWorld();
    const watch = fakeWatcher();
    const signals = new EventEmitter();
    const priced = JSON.stringify({
      type: 'result',
      subtype: 'success',
      is_error: false,
      result: '{"status": "ok", "message": "done"}',
      total_cost_usd: 1.5,
    });
    world.at(5_000, () => {
      writeFileSync(path.join(dir, 'tasks/002.md'), '---\ntitle: task 2, reworded\n---\n');
      watch.fire('tasks/002.md');
    });
    world.at(10_000, () => {
      writeFileSync(file, read(dir, 'kanban.yaml').replace('max_cost_usd: 1', 'max_cost_usd: 5'));
      watch.fire('kanban.yaml');
    });
    world.at(30_000, () => signals.emit('SIGTERM', 'SIGTERM'));
    const fake = agents({ Implementor: [priced] });
    await expect(
      supervise({
        file,
        flags: { watch: true },
        seams: { watcher: watch.watcher, runAttempt: fake.runAttempt, clock: world.clock, signals },
      }),
    ).rejects.toMatchObject({ exitCode: 143 });
    const seen = events(dir).filter((e) => ['waiting', 'edit_invalid', 'woke'].includes(String(e.type)));
    expect(seen.map((e) => e.type)).toEqual(['waiting', 'edit_invalid', 'woke', 'waiting']);
    expect(seen[0]).toMatchObject({ outcome: 'guard_stop', exitCode: 5 });
    expect(seen[1]).toMatchObject({
      files: ['tasks/002.md'],
      file: 'kanban.yaml',
      problem: expect.stringMatching(/^this run has already reached max_cost_usd \(\$1\); raise it to carry on/),
    });
    // The budget is checked between steps: task 1's paid reply reached the Manager, so it is not paid for twice.
    expect(fake.of('Implementor').map((c) => c.task)).toEqual(['tasks/001.md', 'tasks/002.md']);
  });

  it('refuses --watch with --once (exit 2)', async () => {
    const { file } = board(1, '  max_retries: 0\n');
    await expect(
      supervise({
        file,
        flags: { watch: true, once: true },
        seams: { runAttempt: agents().runAttempt, signals: new EventEmitter() },
      }),
    ).rejects.toMatchObject({ exitCode: 2, message: expect.stringContaining('--watch and --once') });
  });
});
