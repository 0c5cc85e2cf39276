/* eslint-disable no-control-regex -- the point is that no escape code is printed */
import { emptyFigures } from '../../src/report/figures.js';
import { describe, expect, it } from 'vitest';
import type { StatusReport } from '../../src/commands/status.js';
import { formatStatus } from '../../src/commands/status-text.js';

const NOW = new Date('2026-11-23T20:00:00Z');
const spend = (costUsd: number, tokens: number) => ({ costUsd, tokens, priced: 1 });

function report(extra: Partial<StatusReport> = {}): StatusReport {
  return {
    file: '/b/kanban.yaml',
    phase: 'execute',
    subPhase: null,
    current: 'tasks/002.md',
    tasks: [
      {
        task: 'tasks/001.md',
        current: false,
        role: 'Implementor',
        title: 'Write it',
        last: {
          run: 'r1',
          step: 1,
          task: 'tasks/001.md',
          role: 'Implementor',
          manager: false,
          attempt: 1,
          of: 4,
          start: '2026-11-23T19:00:00Z',
          finished: {
            durationMs: 1200,
            end: 'exited',
            valid: true,
            status: 'blocked',
            message: 'Needs a key \x1b]52;c;aGk=\x07for staging',
          },
        },
      },
      { task: 'tasks/002.md', current: true, role: 'Implementor' },
    ],
    lock: { state: 'free' },
    lastRun: {
      id: 'r1',
      start: '2026-11-23T19:00:00Z',
      last: '2026-11-23T19:05:00Z',
      steps: 1,
      spend: {
        total: spend(1.25, 42_000),
        byRole: { Implementor: spend(1, 40_000), Manager: spend(0.25, 2_000) },
        byTask: {},
      },
      figures: {
        completed: 2,
        modelRuns: 3,
        retries: 1,
        spend: spend(1.25, 42_000),
        limitWaitMs: 90_000,
        byTask: { 'tasks/001.md': { ...emptyFigures(), modelRuns: 2, retries: 1, spend: spend(1, 40_000) } },
      },
    },
    history: { bytes: 100, read: 100, limit: 1000, readAll: true },
    ...extra,
  };
}

describe('status as a person reads it', () => {
  it("shows each reply's mark and message start, the task's title, and the last run's spend per role", () => {
    const text = formatStatus(report(), NOW);
    expect(text).toContain(
      '    tasks/001.md  Implementor  ⊘ replied blocked: Needs a key for staging (1.2s, step 1 of the last run) ' +
        '— Write it\n',
    );
    expect(text).toContain(
      '  spent: $1.25, 42k tokens (Implementor $1.00, 40k tokens · Manager $0.250, 2.0k tokens)\n',
    );
    expect(text).not.toMatch(/\x1b|\x07/);
  });

  it('shows the morning figures: per run, and per task under its line', () => {
    const text = formatStatus(report(), NOW);
    expect(text).toContain(
      '  figures: 2 task(s) completed · 3 model run(s) (1.50 a completed task) · 1 retry · ' +
        '$0.625, 21k tokens a completed task · 1m30s waiting for usage limits\n',
    );
    expect(text).toMatch(/^ {6} +last run: 2 model run\(s\) · 1 retry · \$1\.00, 40k tokens$/m);
  });

  it('says what a run waits for and until when, and a limit that outlived the last run', () => {
    const waiting = {
      for: 'usage_limit' as const,
      reason: "You've hit your limit · resets 9pm (Europe/Vilnius)",
      since: '2026-11-23T19:30:00Z',
      until: '2026-11-23T21:00:30Z',
      role: 'Implementor',
      task: 'tasks/002.md',
      cli: 'claude',
      pid: 1,
    };
    const live = formatStatus(report({ waiting: { ...waiting, active: true } }), NOW);
    expect(live).toMatch(
      new RegExp(
        String.raw`^Waiting: for claude's usage limit to reset at \S+ \S+ \(in 1h00m\), ` +
          String.raw`since \S+ \S+ \(Implementor on tasks\/002\.md\)\. The CLI said: You've hit your limit`,
        'm',
      ),
    );
    const after = formatStatus(report({ waiting: { ...waiting, active: false } }), NOW);
    expect(after).toMatch(
      new RegExp(
        String.raw`^Usage limit: the last run stopped for claude's usage limit, ` +
          String.raw`which resets at \S+ \S+ \(in 1h00m\); a run started before then waits for it\.`,
        'm',
      ),
    );
  });

  it('shows a resident supervisor waiting for an edit, and the edit that does not validate yet', () => {
    const waiting = {
      for: 'board_change' as const,
      reason: 'Done: the board has no next task',
      since: '2026-11-23T19:30:00Z',
      pid: 1,
      outcome: 'done',
      exitCode: 0,
      invalid: 'kanban.yaml:3: /current "x" is not in /tasks',
    };
    expect(formatStatus(report({ waiting: { ...waiting, active: true } }), NOW)).toMatch(
      new RegExp(
        String.raw`^Waiting: resident \(--watch\) since \S+ \S+, for an edit of kanban\.yaml, ` +
          String.raw`a task or a role file; it would have ended: Done: the board has no next task\. ` +
          String.raw`Your last edit does not validate yet: kanban\.yaml:3:`,
        'm',
      ),
    );
  });

  it('says on a board with no current task how to run one (a task added to a done board never runs by itself)', () => {
    const text = formatStatus(report({ current: null }), NOW);
    expect(text.split('\n')[0]).toBe(
      'kanban.yaml · phase execute · current (none: nothing left to run. To run a task, ' +
        'set `current:` in kanban.yaml to its path (one of tasks).)',
    );
  });

  it('says plainly that phase complete keeps the current task from running, and the fix', () => {
    expect(formatStatus(report({ phase: 'complete', completeWithCurrent: true }), NOW)).toMatch(
      new RegExp(
        String.raw`^Note: phase is complete, so a run stops at once and tasks\/002\.md is not run\. To run it, ` +
          String.raw`set phase to another value`,
        'm',
      ),
    );
  });

  it('says how the last run ended in words, with what to do next', () => {
    const end = {
      time: '2026-11-23T19:05:00Z',
      type: 'halted' as const,
      exitCode: 4,
      reason: 'halted_for_human',
      why: 'The Manager halted for a person (status escalate) after tasks/001.md: which database?',
    };
    const text = formatStatus(
      report({
        lastRun: { ...(report().lastRun as NonNullable<StatusReport['lastRun']>), end },
        lastHalt: { ...end, run: 'r1' },
      }),
      NOW,
    );
    expect(text).toMatch(
      new RegExp(
        String.raw`^Last run: started \S+ \S+, 1 step\(s\): halted for a person: the Manager asked for one\. ` +
          String.raw`Answer it \(edit the task file or kanban\.yaml\), then run again \(exit 4\) ` +
          String.raw`— The Manager halted for a person`,
        'm',
      ),
    );
    expect(text).not.toContain('HaltedForHumanError');
  });
});
