import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildInvocation } from '../../src/agent/invocation.js';
import { tailEvents } from '../../src/history/step-history.js';
import { eventLine } from '../../src/progress/event-lines.js';
import { CAPABILITY_EVENTS } from '../../src/run/capability-list.js';
import { liveReporter } from '../../src/progress/live.js';
import { createStyle } from '../../src/util/style.js';
import { parseRole, type Role } from '../../src/board/role.js';
import type { SupervisorEvent } from '../../src/event-types.js';
import type { ReadEvent } from '../../src/events/parse.js';
import { tempDir } from '../helpers.js';

const manager = parseRole(
  'roles/manager.md',
  'Manager',
  '---\ncommand: [agent, "{{prompt}}"]\nstdin: json\n---\nAfter {{trigger}}: {{history}}\n',
).role as Role;
const place = {
  boardDir: '/board',
  env: {},
  limits: { timeoutMs: 1000, idleTimeoutMs: null, killGraceMs: 5000 },
  tag: 't',
};

describe("the Manager's new inputs", () => {
  it('reach {{trigger}}, {{history}}, KANBAN_TRIGGER and KANBAN_INPUT', () => {
    const history = [{ task: 'tasks/001.md', status: 'ok' }];
    const invocation = buildInvocation(
      manager,
      {
        role: 'Manager',
        kanban_file: 'kanban.yaml',
        done_task: null,
        tasks: [],
        result: { status: 'ok', message: 'm' },
        trigger: 'Reviewer',
        history,
      },
      place,
    );
    expect(invocation.args).toEqual(['After Reviewer: [{"task":"tasks/001.md","status":"ok"}]\n']);
    expect(invocation.env).toMatchObject({ KANBAN_TRIGGER: 'Reviewer', KANBAN_DONE_TASK: '' });
    expect(JSON.parse(invocation.env.KANBAN_INPUT as string)).toMatchObject({
      done_task: null,
      trigger: 'Reviewer',
      history,
    });
  });

  it('leave a history too long for KANBAN_INPUT out of it, saying so, but keep it on stdin', () => {
    const history = Array.from({ length: 50 }, (_, i) => ({ step: i, message: 'x'.repeat(1_500) }));
    const invocation = buildInvocation(
      manager,
      {
        role: 'Manager',
        kanban_file: 'kanban.yaml',
        done_task: 'tasks/001.md',
        tasks: ['tasks/001.md'],
        result: { status: 'ok', message: 'm' },
        history,
      },
      place,
    );
    const input = JSON.parse(invocation.env.KANBAN_INPUT as string) as Record<string, unknown>;
    expect(input.history).toBeUndefined();
    expect(input.history_omitted).toBe(
      '50 step(s), over the 64 KiB of KANBAN_INPUT: read stdin (stdin: json) or {{history}}',
    );
    expect(input.result).toEqual({ status: 'ok', message: 'm' });
    expect((JSON.parse(String(invocation.stdin)) as { history: unknown[] }).history).toHaveLength(50);
    expect(invocation.env.KANBAN_TRIGGER).toBeUndefined();
  });
});

describe('the tail of events.jsonl', () => {
  it('holds only whole events from the end, skipping a line cut by the window and one torn by a crash', () => {
    const dir = tempDir();
    mkdirSync(path.join(dir, '.kanban-supervisor'));
    const lines = Array.from({ length: 100 }, (_, i) =>
      JSON.stringify({
        time: 't',
        type: 'step_started',
        run: 'r',
        step: i + 1,
        role: 'Implementor',
        task: 'tasks/a.md',
      }),
    );
    const torn = '{"time":"t","type":"done","ru';
    writeFileSync(path.join(dir, '.kanban-supervisor/events.jsonl'), `${lines.join('\n')}\n${torn}`);
    // The torn end, ten lines and the end of one more, cut.
    const window = torn.length + 10 * ((lines[99] as string).length + 1) + 5;
    const steps = (events: ReadEvent[]) => events.map((e) => (e.type === 'step_started' ? e.step : undefined));
    expect(steps(tailEvents(dir, CAPABILITY_EVENTS, window))).toEqual([91, 92, 93, 94, 95, 96, 97, 98, 99, 100]);
    expect(steps(tailEvents(dir, CAPABILITY_EVENTS))).toHaveLength(100);
    expect(tailEvents(tempDir(), CAPABILITY_EVENTS)).toEqual([]);
  });
});

describe('how the new events are shown', () => {
  const style = createStyle(false);
  const at = (fields: Partial<SupervisorEvent> & { type: SupervisorEvent['type'] }): SupervisorEvent =>
    ({
      time: '2026-11-23T20:00:00.000Z',
      run: 'r',
      ...fields,
    }) as SupervisorEvent;

  it('as plain lines, agent text cleaned', () => {
    expect(
      eventLine(
        at({ type: 'waiting', outcome: 'halted_for_human', reason: 'The Manager halted: \x1b[31mport?\x1b[0m' }),
        style,
        CAPABILITY_EVENTS,
      ),
    ).toBe(
      '⏸ waiting for an edit of kanban.yaml, a task or a role file — halted for a person: ' +
        'The Manager halted: port?',
    );
    expect(
      eventLine(
        at({ type: 'waiting', outcome: 'done', reason: 'r', via: 'polling', why: 'ENOSPC' }),
        style,
        CAPABILITY_EVENTS,
      ),
    ).toContain('(comparing the files every few seconds: ENOSPC)');
    expect(
      eventLine(at({ type: 'woke', by: 'change', files: ['kanban.yaml', 'tasks/002.md'] }), style, CAPABILITY_EVENTS),
    ).toBe('▶ kanban.yaml, tasks/002.md changed; carrying on from the board as it is');
    expect(
      eventLine(
        at({ type: 'edit_invalid', file: 'kanban.yaml', line: 3, problem: 'bad', problems: 2 }),
        style,
        CAPABILITY_EVENTS,
      ),
    ).toBe('  ! kanban.yaml:3: bad (and 1 more problem(s)); still waiting for a change');
    expect(
      eventLine(
        at({
          type: 'step_started',
          step: 3,
          role: 'Reviewer',
          task: 'kanban.yaml',
          trigger: 'Reviewer',
          done_tasks: 2,
        }),
        style,
        CAPABILITY_EVENTS,
      ),
    ).toBe('step 3 · Reviewer (periodic) · 2 task(s) done since its last run');
    expect(
      eventLine(at({ type: 'handed_to_manager', role: 'Implementor', attempts: 4 }), style, CAPABILITY_EVENTS),
    ).toBe(
      '  ✗ Implementor gave no valid reply in 4 attempts; ' +
        'the Manager gets {"status": "error"} for it (on_exhausted: manager)',
    );
  });

  it('on the live line: a resident run between passes says what it waits for, since when', () => {
    let out = '';
    const live = liveReporter({
      write: (text) => void (out += text),
      columns: () => 120,
      style,
      now: () => 0,
      tickMs: 60_000,
      events: CAPABILITY_EVENTS,
    });
    live.event(
      at({
        type: 'waiting',
        outcome: 'done',
        reason: 'the board has no next task',
        time: new Date(2026, 10, 23, 9, 5).toISOString(),
      }),
    );
    live.close();
    expect(out).toContain(
      '⏸ waiting for an edit of kanban.yaml, a task or a role file — done: the board has no next task\n',
    );
    expect(out).toContain('⏸ waiting for an edit since 09:05 · run 0:00');
  });
});
