import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { foldRuns } from '../../src/events/fold.js';
import { readLatest } from '../../src/events/latest.js';
import { readRecentRuns } from '../../src/events/recent-runs.js';
import type { ReadEvent } from '../../src/events/parse.js';
import { status } from '../../src/commands/status.js';
import { StepHistory } from '../../src/history/step-history.js';
import { eventTable } from '../../src/events/capability-events.js';
import { CAPABILITY_EVENTS } from '../../src/run/capability-list.js';
import { boardWithTasks, tempDir } from '../helpers.js';
import { buildHistory, plain, type PlainRun } from '../reference-fold.js';

type Outcome = 'ok' | 'bad' | 'open';
/** A step of a synthetic run: its task and how each worker attempt ended ('open': no end recorded). */
interface StepPlan {
  task: string;
  attempts: Outcome[];
}
/** A synthetic run: its steps and how it ended (none: killed). */
interface RunPlan {
  steps: StepPlan[];
  end: 'done' | 'halted' | 'interrupted' | 'none';
}

/** Events shaped as the supervisor writes them, oldest first, one second apart. */
function historyOf(runs: RunPlan[]): ReadEvent[] {
  const events: ReadEvent[] = [];
  let clock = Date.parse('2026-03-01T00:00:00.000Z');
  runs.forEach((plan, r) => {
    const run = `run-${r}`;
    const emit = (type: ReadEvent['type'], fields: Record<string, unknown> = {}) =>
      events.push({ time: new Date((clock += 1000)).toISOString(), type, run, ...fields } as ReadEvent);
    emit('run_started', { board: 'kanban.yaml', pid: 100 + r });
    plan.steps.forEach(({ task, attempts }, s) => {
      const step = s + 1;
      emit('step_started', { step, role: 'Implementor', task });
      attempts.forEach((outcome, a) => {
        const where = { step, role: 'Implementor', task, attempt: a + 1 };
        emit('attempt_started', { ...where, of: 4 });
        if (outcome !== 'open')
          emit('attempt_finished', {
            ...where,
            end: 'exited',
            durationMs: 5,
            valid: outcome === 'ok',
            ...(outcome === 'ok' ? { status: 'ok' } : { issue: 'printed no JSON' }),
            stdoutFile: `out/${run}-${step}-${a}.out`,
          });
        if (outcome === 'bad') emit('retry', { ...where, retry: a + 1, maxRetries: 3, issue: 'printed no JSON' });
      });
      const manager = { step, role: 'Manager', task: `kanban.yaml (done_task: ${task})`, attempt: 1 };
      emit('attempt_started', { ...manager, of: 4 });
      emit('attempt_finished', { ...manager, end: 'exited', durationMs: 3, valid: true, status: 'ok' });
      emit('limit_wait', { step, resetAt: 'later' }); // a field added later: ignored
    });
    if (plan.end === 'done') emit('done', { steps: plan.steps.length });
    if (plan.end === 'halted')
      emit('halted', {
        steps: plan.steps.length,
        exitCode: 4,
        reason: 'HaltedForHumanError',
        message: 'the Manager asked for a person',
      });
    if (plan.end === 'interrupted')
      emit('interrupted', {
        steps: plan.steps.length,
        exitCode: 130,
        reason: 'InterruptedError',
        message: 'Interrupted by SIGINT',
      });
  });
  return events;
}

function newestFirst(events: ReadEvent[]): ReadEvent[] {
  return [...events].reverse();
}

function boardWithHistory(events: ReadEvent[], tail = ''): string {
  const dir = tempDir('ks-history-');
  mkdirSync(path.join(dir, '.kanban-supervisor'));
  writeFileSync(
    path.join(dir, '.kanban-supervisor', 'events.jsonl'),
    events.map((e) => `${JSON.stringify(e)}\n`).join('') + tail,
  );
  return dir;
}

/** What status showed before it read backwards: every run built, then the last of each. */
function reference(runs: PlainRun[], tasks: string[]) {
  const last = new Map(runs.flatMap((r) => r.attempts.filter((a) => !a.manager).map((a) => [a.task, a] as const)));
  const run = runs.at(-1);
  const halt = runs.filter((r) => r.end && r.end.type !== 'done').at(-1);
  return {
    attempts: new Map(tasks.flatMap((t) => (last.has(t) ? [[t, last.get(t)]] : []))),
    lastRun: run && {
      id: run.id,
      start: run.start,
      last: run.last,
      steps: run.steps,
      ...(run.end && { end: run.end }),
    },
    lastHalt: halt?.end && { ...halt.end, run: halt.id },
  };
}

const TASKS = ['tasks/a.md', 'tasks/b.md', 'tasks/c.md'];
const stepPlan = fc.record({
  task: fc.constantFrom(...TASKS),
  attempts: fc.array(fc.constantFrom<Outcome>('ok', 'bad', 'open'), { minLength: 1, maxLength: 3 }),
});
const runPlan = fc.record({
  steps: fc.array(stepPlan, { maxLength: 4 }),
  end: fc.constantFrom<RunPlan['end']>('done', 'halted', 'interrupted', 'none'),
});

describe('folding events into runs', () => {
  it('pairs attempts, tells the Manager from the worker, keeps each run’s last end and ignores unknown types', () => {
    const runs = foldRuns(
      newestFirst(
        historyOf([
          { steps: [{ task: 'tasks/a.md', attempts: ['bad', 'ok'] }], end: 'done' },
          { steps: [{ task: 'tasks/b.md', attempts: ['open'] }], end: 'none' },
        ]),
      ),
      eventTable(CAPABILITY_EVENTS).folds,
    );
    expect(runs.map((r) => [r.id, r.steps, r.end?.type ?? null, r.attempts.length])).toEqual([
      ['run-0', 1, 'done', 3],
      ['run-1', 1, null, 2],
    ]);
    expect(runs[0]?.attempts.map((a) => [a.task, a.role, a.manager, a.attempt, a.finished?.valid])).toEqual([
      ['tasks/a.md', 'Implementor', false, 1, false],
      ['tasks/a.md', 'Implementor', false, 2, true],
      ['tasks/a.md', 'Manager', true, 1, true],
    ]);
    expect(runs[1]?.attempts[0]?.finished).toBeUndefined();
  });

  it(
    'gives, from events newest first, the runs and attempts a forward pass builds, ' +
      'and each step with what happened in it (fast-check)',
    () => {
      fc.assert(
        fc.property(fc.array(runPlan, { minLength: 1, maxLength: 5 }), (plans) => {
          const events = historyOf(plans);
          const runs = foldRuns(
            (function* () {
              yield* newestFirst(events);
            })(),
            eventTable(CAPABILITY_EVENTS).folds,
          );
          expect(plain(runs)).toEqual(buildHistory(events));
          const steps = runs.flatMap((run) => run.stepRecords.map((s) => [s.task, s.limitWaits, s.stopped ?? null]));
          expect(steps).toEqual(plans.flatMap((plan) => plan.steps.map((s) => [s.task, 1, null])));
        }),
        { numRuns: 100 },
      );
    },
  );
});

describe('what status reads from the end of the history', () => {
  it('finds the same last attempts, run and halt as building every run, with any chunk size (fast-check)', () => {
    fc.assert(
      fc.property(
        fc.array(runPlan, { minLength: 1, maxLength: 5 }),
        fc.integer({ min: 16, max: 4096 }),
        (plans, chunkBytes) => {
          const events = historyOf(plans);
          const dir = boardWithHistory(events);
          const latest = readLatest(dir, TASKS, CAPABILITY_EVENTS, { chunkBytes });
          const expected = reference(buildHistory(events), TASKS);
          expect(latest.attempts).toEqual(expected.attempts);
          expect(latest.lastRun).toEqual(expected.lastRun);
          expect(latest.lastHalt).toEqual(expected.lastHalt);
        },
      ),
      { numRuns: 120 },
    );
  });

  it("adds up the last run's reported spend, in all, per role and per task", () => {
    const usage = (costUsd: number, tokens: number) => ({ costUsd, inputTokens: tokens, outputTokens: 0 });
    const at = (type: string, fields: Record<string, unknown>, run = 'r2') =>
      JSON.stringify({ time: '2026-03-01T00:00:00.000Z', type, run, ...fields });
    const attempt = (fields: Record<string, unknown>, spent: ReturnType<typeof usage>, run?: string) => [
      at('attempt_started', { ...fields, of: 4 }, run),
      at('attempt_finished', { ...fields, of: 4, end: 'exited', durationMs: 1, valid: true, usage: spent }, run),
    ];
    const lines = [
      at('run_started', {}, 'r1'),
      ...attempt({ step: 1, role: 'Implementor', task: 'tasks/a.md', attempt: 1 }, usage(5, 1000), 'r1'),
      at('run_started', {}),
      ...attempt({ step: 1, role: 'Implementor', task: 'tasks/a.md', attempt: 1 }, usage(0.5, 100)),
      ...attempt({ step: 1, role: 'Implementor', task: 'tasks/a.md', attempt: 2 }, usage(0.25, 50)),
      ...attempt(
        { step: 1, role: 'Manager', task: 'tasks/a.md', done_task: 'tasks/a.md', attempt: 1 },
        usage(0.125, 10),
      ),
    ];
    const dir = boardWithTasks(1, {});
    mkdirSync(path.join(dir, '.kanban-supervisor'));
    writeFileSync(path.join(dir, '.kanban-supervisor', 'events.jsonl'), `${lines.join('\n')}\n`);
    const spend = status({ file: path.join(dir, 'kanban.yaml') }).lastRun?.spend;
    expect(spend?.total).toEqual({ costUsd: 0.875, tokens: 160, priced: 3 });
    expect(spend?.byRole).toEqual({
      Implementor: { costUsd: 0.75, tokens: 150, priced: 2 },
      Manager: { costUsd: 0.125, tokens: 10, priced: 1 },
    });
    expect(spend?.byTask['tasks/a.md']).toEqual({ costUsd: 0.875, tokens: 160, priced: 3 });
  });

  it('stops reading once it has all it shows', () => {
    const plans: RunPlan[] = Array.from({ length: 50 }, () => ({
      steps: TASKS.map((task) => ({ task, attempts: ['ok'] })),
      end: 'halted',
    }));
    const latest = readLatest(boardWithHistory(historyOf(plans)), TASKS, CAPABILITY_EVENTS, { chunkBytes: 1024 });
    expect(latest.attempts.size).toBe(3);
    expect(latest.window.read).toBeLessThan(latest.window.bytes / 10);
    expect(latest.window.readAll).toBe(false);
  });

  it('reads at most windowBytes, and says a run began further back than that', () => {
    const plans: RunPlan[] = [
      { steps: Array.from({ length: 40 }, () => ({ task: 'tasks/a.md', attempts: ['ok'] })), end: 'done' },
    ];
    const latest = readLatest(boardWithHistory(historyOf(plans)), [...TASKS, 'tasks/new.md'], CAPABILITY_EVENTS, {
      windowBytes: 2048,
      chunkBytes: 512,
    });
    expect(latest.window).toMatchObject({ read: 2048, limit: 2048, readAll: false });
    expect(latest.attempts.get('tasks/a.md')?.step).toBe(40);
    expect(latest.attempts.has('tasks/new.md')).toBe(false);
    expect(latest.lastRun).toMatchObject({ id: 'run-0', steps: 40, end: { type: 'done' }, startNotRead: true });
    expect(latest.lastHalt).toBeUndefined();
  });

  it('skips a torn last line and a torn line in the middle', () => {
    const events = historyOf([
      { steps: [{ task: 'tasks/a.md', attempts: ['ok'] }], end: 'halted' },
      { steps: [{ task: 'tasks/b.md', attempts: ['bad', 'ok'] }], end: 'done' },
    ]);
    const lines = events.map((e) => JSON.stringify(e));
    const middle = lines.findIndex((l) => l.includes('"run":"run-1"'));
    lines[middle - 1] = (lines[middle - 1] as string).slice(0, 30); // run-0's last line torn, run-1 appended after it
    const dir = tempDir('ks-history-');
    mkdirSync(path.join(dir, '.kanban-supervisor'));
    writeFileSync(
      path.join(dir, '.kanban-supervisor', 'events.jsonl'),
      `${lines.slice(0, middle).join('\n')}${lines.slice(middle).join('\n')}\n{"time":"2026-03-01T00:09`,
    );
    const latest = readLatest(dir, TASKS, CAPABILITY_EVENTS);
    expect(latest.lastRun).toMatchObject({ id: 'run-1', steps: 1, end: { type: 'done' } });
    expect(latest.lastRun?.startNotRead).toBeUndefined();
    expect(latest.attempts.get('tasks/b.md')).toMatchObject({ attempt: 2, finished: { valid: true } });
    expect(latest.attempts.get('tasks/a.md')).toMatchObject({ run: 'run-0', finished: { valid: true } });
  });

  it('counts a run as halted only when its last end is a halt, as a run that carried on after one ends done', () => {
    const events = historyOf([
      { steps: [{ task: 'tasks/a.md', attempts: ['ok'] }], end: 'interrupted' },
      { steps: [{ task: 'tasks/a.md', attempts: ['ok'] }], end: 'halted' },
    ]);
    const carriedOn = {
      ...(events.at(-1) as ReadEvent),
      time: '2026-03-02T00:00:00.000Z',
      type: 'done' as const,
    };
    const latest = readLatest(boardWithHistory([...events, carriedOn]), TASKS, CAPABILITY_EVENTS);
    expect(latest.lastRun?.end?.type).toBe('done');
    expect(latest.lastHalt).toMatchObject({ run: 'run-0', type: 'interrupted', exitCode: 130 });
  });

  it('has nothing and has read it all when there is no history yet', () => {
    expect(readLatest(tempDir('ks-history-'), TASKS, CAPABILITY_EVENTS)).toEqual({
      attempts: new Map(),
      window: { bytes: 0, read: 0, limit: 16 * 2 ** 20, readAll: true },
    });
  });
});

describe('the runs a report reads', () => {
  it('are the last N runs of building every run, and say whether older ones were left out (fast-check)', () => {
    fc.assert(
      fc.property(
        fc.array(runPlan, { minLength: 1, maxLength: 6 }),
        fc.integer({ min: 1, max: 7 }),
        fc.integer({ min: 16, max: 2048 }),
        (plans, count, chunkBytes) => {
          const events = historyOf(plans);
          const all = buildHistory(events);
          const recent = readRecentRuns(boardWithHistory(events), count, CAPABILITY_EVENTS, { chunkBytes });
          expect(plain(recent?.runs ?? [])).toEqual(all.slice(-count));
          expect(recent?.olderLeftOut).toBe(all.length > count);
          expect(
            plain(readRecentRuns(boardWithHistory(events), Infinity, CAPABILITY_EVENTS, { chunkBytes })?.runs ?? []),
          ).toEqual(all);
        },
      ),
      { numRuns: 80 },
    );
  });

  it('are none for a history without a readable event', () => {
    expect(readRecentRuns(boardWithHistory([], '{"time":"torn'), 10, CAPABILITY_EVENTS)).toBeUndefined();
    expect(readRecentRuns(tempDir('ks-history-'), 10, CAPABILITY_EVENTS)).toBeUndefined();
  });
});

describe("the Manager's history, a view of the fold", () => {
  it('tells each step what happened in it, newest first, from events as a run emits them', () => {
    const history = new StepHistory(CAPABILITY_EVENTS);
    let clock = 0;
    const emit = (type: string, fields: Record<string, unknown> = {}) =>
      history.record({
        time: new Date((clock += 1000)).toISOString(),
        type: type as ReadEvent['type'],
        run: 'r',
        ...fields,
      } as ReadEvent);
    const worker = (step: number, task: string, attempt: number, end: Record<string, unknown>) => {
      emit('attempt_started', { step, role: 'Implementor', task, attempt, of: 2 });
      emit('attempt_finished', {
        step,
        role: 'Implementor',
        task,
        attempt,
        of: 2,
        end: 'exited',
        durationMs: 1,
        ...end,
      });
    };
    emit('run_started');
    emit('step_started', { step: 1, role: 'Implementor', task: 'tasks/a.md' });
    worker(1, 'tasks/a.md', 1, { valid: false, failure: 'usage_limit', issue: 'limited' });
    emit('limit_wait', { step: 1, role: 'Implementor', task: 'tasks/a.md' });
    worker(1, 'tasks/a.md', 1, { valid: false, failure: 'invalid', issue: 'printed no JSON' });
    worker(1, 'tasks/a.md', 2, { valid: true, status: 'ok', message: 'done' });
    emit('attempt_started', {
      step: 1,
      role: 'Manager',
      task: 'tasks/a.md',
      done_task: 'tasks/a.md',
      attempt: 1,
      of: 2,
    });
    emit('attempt_finished', {
      step: 1,
      role: 'Manager',
      task: 'tasks/a.md',
      done_task: 'tasks/a.md',
      attempt: 1,
      of: 2,
      valid: true,
      status: 'ok',
    });
    emit('human_edit_kept', { step: 1, task: 'tasks/a.md' });
    emit('board_written', { step: 1, task: 'tasks/a.md', status: 'ok', current: 'tasks/b.md' });
    emit('step_started', { step: 2, role: 'Implementor', task: 'tasks/b.md' });
    worker(2, 'tasks/b.md', 1, { valid: false, failure: 'invalid', issue: 'bad 1' });
    worker(2, 'tasks/b.md', 2, { valid: false, failure: 'invalid', issue: 'bad 2' });
    emit('handed_to_manager', { step: 2, role: 'Implementor', task: 'tasks/b.md', message: 'no valid reply' });
    emit('halted', { step: 2, role: 'Implementor', task: 'tasks/b.md', exitCode: 3, reason: 'retries_exhausted' });
    const [second, first] = history.recent();
    expect(first).toEqual({
      run: 'r',
      step: 1,
      time: expect.any(String),
      task: 'tasks/a.md',
      role: 'Implementor',
      attempts: 3,
      invalid: ['printed no JSON'],
      limit_waits: 1,
      status: 'ok',
      message: 'done',
      person_edit_kept: true,
      manager: { status: 'ok', next_task: 'tasks/b.md' },
    });
    expect(second).toEqual({
      run: 'r',
      step: 2,
      time: expect.any(String),
      task: 'tasks/b.md',
      role: 'Implementor',
      attempts: 2,
      invalid: ['bad 1', 'bad 2'],
      limit_waits: 0,
      exhausted: true,
      status: 'error',
      message: 'no valid reply',
      stopped: 'retries_exhausted',
    });
  });

  it('keeps the last 50 steps', () => {
    const history = new StepHistory(CAPABILITY_EVENTS);
    for (let step = 1; step <= 60; step++)
      history.record({ time: 't', type: 'step_started', run: 'r', step, role: 'Implementor', task: 'tasks/a.md' });
    expect(history.recent().map((s) => s.step)).toEqual(Array.from({ length: 50 }, (_, i) => 60 - i));
  });
});
