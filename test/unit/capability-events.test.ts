import { describe, expect, it } from 'vitest';
import { eventTable } from '../../src/events/capability-events.js';
import { foldRuns } from '../../src/events/fold.js';
import { parseEvent } from '../../src/events/parse.js';
import { gitEvents } from '../../src/git/events.js';
import { limitsEvents } from '../../src/limits/events.js';
import { eventLine } from '../../src/progress/event-lines.js';
import { CAPABILITY_EVENTS } from '../../src/run/capability-list.js';
import { createStyle } from '../../src/util/style.js';

const committed = {
  time: '2026-01-01T00:00:00.000Z',
  type: 'git_committed',
  run: 'r1',
  step: 1,
  role: 'Implementor',
  task: 'tasks/a.md',
  commit: '0123456789abcdef0123',
  paths: 2,
} as const;

describe("a capability's event types, as the core is handed them", () => {
  it('are read, shown and folded as the capability says, and only from the list handed in', () => {
    const line = JSON.stringify(committed);
    expect(parseEvent(line, eventTable(CAPABILITY_EVENTS).checks)).toEqual(committed);
    // Without the capability, its type is one this version does not know: its run counts, nothing else.
    expect(parseEvent(line, eventTable([limitsEvents]).checks)).toEqual({
      time: committed.time,
      type: 'unknown',
      run: 'r1',
      named: 'git_committed',
    });
    expect(eventLine(committed, createStyle(false), CAPABILITY_EVENTS)).toBe('  committed 0123456789ab (2 paths)');
    expect(eventLine(committed, createStyle(false), [limitsEvents])).toBeNull();
    expect(foldRuns([committed], eventTable(CAPABILITY_EVENTS).folds)[0]?.commits).toEqual({
      count: 1,
      first: committed.commit,
      last: committed.commit,
    });
    expect(foldRuns([committed], eventTable([limitsEvents]).folds)[0]?.commits).toBeUndefined();
  });

  it('refuses an event type two capabilities add', () => {
    expect(() => eventTable([gitEvents, { types: { git_committed: gitEvents.types.git_committed } }])).toThrow(
      'the event type git_committed is added twice',
    );
  });
});
