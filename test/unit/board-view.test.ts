import { describe, expect, it } from 'vitest';
import type { RunRecord } from '../../src/events/fold.js';
import type { AttemptRecord } from '../../src/events/records.js';
import { boardCards, placeOf } from '../../src/report/board-view.js';

function attempt(
  task: string,
  over: Partial<AttemptRecord> & { status?: string; valid?: boolean } = {},
): AttemptRecord {
  const { status = 'ok', valid = true, ...rest } = over;
  return {
    run: 'r1',
    step: 1,
    task,
    role: 'Implementor',
    manager: false,
    attempt: 1,
    of: 4,
    start: '2026-11-27T06:00:00.000Z',
    finished: { durationMs: 10, end: 'exited', valid, ...(valid ? { status } : { issue: 'printed no JSON' }) },
    ...rest,
  };
}

function run(attempts: AttemptRecord[], id = 'r1'): RunRecord {
  return { id, start: attempts[0]?.start ?? '', last: '', steps: 1, attempts, stepRecords: [] };
}

describe('where a task goes on the board', () => {
  it('running now is current; current on an unfinished board is current, unless its last step needs a person', () => {
    expect(placeOf({ current: false, running: true, status: 'done' }).column).toBe('current');
    expect(placeOf({ current: true, running: false })).toEqual({
      column: 'current',
      because: 'current in kanban.yaml',
    });
    expect(placeOf({ current: true, running: false, last: attempt('t', { status: 'blocked' }) })).toEqual({
      column: 'blocked',
      because: 'current, and its last step replied blocked',
    });
  });

  it('its front-matter status decides next, in the words a Manager or a person writes', () => {
    for (const [status, column] of [
      ['done', 'done'],
      ['Completed', 'done'],
      ['escalated', 'blocked'],
      ['todo', 'todo'],
    ])
      expect(
        placeOf({ current: false, running: false, status, last: attempt('t', { status: 'blocked' }) }).column,
      ).toBe(column);
    // A word it does not know leaves the history to decide.
    expect(placeOf({ current: false, running: false, status: 'in review', last: attempt('t') }).column).toBe('done');
  });

  it(
    'then its last outcome: ok is done; blocked, error, escalate, retries exhausted or the Manager not ok is ' +
      'blocked; else to do',
    () => {
      const place = (last?: AttemptRecord, escalated?: AttemptRecord) =>
        placeOf({ current: false, running: false, ...(last && { last }), ...(escalated && { escalated }) });
      expect(place(attempt('t')).column).toBe('done');
      expect(place(attempt('t', { status: 'error' })).column).toBe('blocked');
      expect(place(attempt('t', { valid: false, attempt: 4, of: 4 })).because).toBe(
        'its last step gave no valid reply after every retry',
      );
      expect(place(attempt('t', { valid: false, attempt: 2, of: 4 })).column).toBe('todo'); // stopped between retries
      expect(place(attempt('t'), attempt('t', { role: 'Manager', manager: true, status: 'escalate' })).because).toBe(
        'its last step was answered escalate by the Manager',
      );
      expect(place()).toEqual({ column: 'todo', because: 'not run in these runs' });
    },
  );
});

describe('the board as cards', () => {
  it(
    'counts a task’s worker attempts and its steps’ spend, hears the Manager only on the last step, ' +
      'and skips periodic steps',
    () => {
      const usage = { costUsd: 0.5 };
      const runs = [
        run([
          attempt('tasks/a.md', { valid: false, finished: { durationMs: 1, end: 'exited', valid: false, usage } }),
          attempt('tasks/a.md', {
            attempt: 2,
            finished: { durationMs: 1, end: 'exited', valid: true, status: 'blocked' },
          }),
          attempt('tasks/a.md', { role: 'Manager', manager: true, status: 'escalate' }),
          attempt('kanban.yaml', { trigger: 'Reviewer', role: 'Reviewer' }),
        ]),
        run(
          [
            attempt('tasks/a.md', { run: 'r2', step: 1 }),
            attempt('tasks/b.md', { run: 'r2', step: 2, finished: undefined }),
          ],
          'r2',
        ),
      ];
      const cards = boardCards(
        { current: 'tasks/b.md', phase: 'execute' },
        [
          { task: 'tasks/a.md', role: 'Implementor' },
          { task: 'tasks/b.md', role: 'Implementor', title: 'B' },
          { task: 'tasks/c.md', role: null, problem: 'tasks/c.md: no such file.' },
        ],
        runs,
        'r2',
      );
      expect(cards.map((c) => [c.task, c.column, c.attempts, c.running, c.spend.costUsd])).toEqual([
        // Its last step (run r2) replied ok; the escalation was an earlier step's.
        ['tasks/a.md', 'done', 3, false, 0.5],
        ['tasks/b.md', 'current', 1, true, 0],
        ['tasks/c.md', 'todo', 0, false, 0],
      ]);
      expect(cards[0]?.escalated).toBeUndefined();
      // The same run no longer going on (its lock gone): nothing runs.
      expect(boardCards({ current: 'tasks/b.md' }, [{ task: 'tasks/b.md', role: null }], runs)[0]?.running).toBe(false);
    },
  );
});
