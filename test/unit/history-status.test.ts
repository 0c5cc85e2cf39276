import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { status } from '../../src/commands/status.js';
import { InputError } from '../../src/errors.js';
import { readRecentRuns } from '../../src/events/recent-runs.js';
import { CAPABILITY_EVENTS } from '../../src/run/capability-list.js';
import { unreadable, withStore } from '../../src/events/event-files.js';
import { formatStatus } from '../../src/commands/status-text.js';
import { boardWithTasks } from '../helpers.js';

const NOW = new Date('2026-05-01T00:00:00.000Z');

/** Events lines as the supervisor writes them, for run `run`, `steps` steps of tasks/001.md. */
function runLines(run: string, steps: number, end?: string): string[] {
  const at = (n: number) =>
    `2026-04-0${run.length % 9}T00:${String(Math.floor(n / 60)).padStart(2, '0')}:` +
    `${String(n % 60).padStart(2, '0')}.000Z`;
  const lines = [{ time: at(0), type: 'run_started', run }];
  for (let step = 1; step <= steps; step++) {
    const where = { run, step, role: 'Implementor', task: 'tasks/001.md', attempt: 1 };
    lines.push(
      { time: at(step), type: 'step_started', ...where },
      { time: at(step), type: 'attempt_started', ...where, of: 1 } as never,
      {
        time: at(step),
        type: 'attempt_finished',
        ...where,
        end: 'exited',
        durationMs: 10,
        valid: true,
        status: 'ok',
      } as never,
    );
  }
  if (end)
    lines.push({
      time: at(steps + 1),
      type: end,
      run,
      exitCode: 4,
      reason: 'HaltedForHumanError',
      message: 'over to you',
    } as never);
  return lines.map((line) => JSON.stringify(line));
}

function boardWithEvents(lines: string[]): string {
  const dir = boardWithTasks(2, {});
  mkdirSync(path.join(dir, '.kanban-supervisor'));
  writeFileSync(path.join(dir, '.kanban-supervisor', 'events.jsonl'), `${lines.join('\n')}\n`);
  return dir;
}

describe('status with a bounded read of the history', () => {
  it('says an outcome, a run start or a halt is older than what it read, rather than "not run yet"', () => {
    const dir = boardWithEvents([...runLines('old', 1, 'halted'), ...runLines('long-run', 60)]);
    const report = status({ file: path.join(dir, 'kanban.yaml'), windowBytes: 2048 });
    expect(report.history).toMatchObject({ read: 2048, limit: 2048, readAll: false });
    const text = formatStatus(report, NOW).split('\n');
    expect(text[3]).toMatch(
      new RegExp(
        String.raw`^ {2}→ tasks\/001\.md {2}Implementor {2}✓ ` +
          String.raw`replied ok \(10ms, step 60 of the last run\)`,
      ),
    );
    expect(text[4]).toMatch(/^ {4}tasks\/002\.md {2}Implementor {2}no outcome in the last 2 KiB of history( — .*)?$/);
    expect(text[5]).toMatch(
      new RegExp(
        String.raw`^Last run: started before \S+ \S+ \(further back than the last 2 KiB of history read\), ` +
          String.raw`60 step\(s\): no end recorded`,
      ),
    );
    expect(text[6]).toMatch(
      /^ {2}figures: 4 task\(s\) completed · 0 model run\(s\) · 0 retries · no usage-limit wait$/,
    );
    expect(text[7]).toBe('Last halt: none in the last 2 KiB of history');
  });

  it('reads it all when it is small: "not run yet" and no halt line mean just that', () => {
    const dir = boardWithEvents(runLines('only', 2));
    const report = status({ file: path.join(dir, 'kanban.yaml') });
    expect(report.history.readAll).toBe(true);
    const text = formatStatus(report, NOW);
    expect(text).toMatch(/^ {4}tasks\/002\.md {2}Implementor {2}not run yet( — .*)?$/m);
    expect(text).not.toContain('Last halt');
    expect(text).toMatch(/^Last run: started 2026-04-0[34] \d\d:00:00, 2 step\(s\)/m);
  });
});

describe('reading runs for the report', () => {
  it('starts the last runs at a torn line that the next run appended its first event to', () => {
    const first = runLines('first', 1);
    const second = runLines('second', 1, 'halted');
    first[first.length - 1] = (first.at(-1) as string).slice(0, 25);
    const dir = boardWithEvents([...first.slice(0, -1), `${first.at(-1)}${second[0]}`, ...second.slice(1)]);
    const recent = readRecentRuns(dir, 1, CAPABILITY_EVENTS, { chunkBytes: 64 });
    expect(recent?.runs.map((r) => [r.id, r.start, r.attempts.length])).toEqual([
      ['second', JSON.parse(second[0] as string).time, 1],
    ]);
    expect(recent?.olderLeftOut).toBe(true);
  });
});

describe('a history that cannot be read', () => {
  it('is an InputError naming the file, with the fix for its cause', () => {
    const file = path.join(process.cwd(), '.kanban-supervisor', 'events.jsonl');
    expect(
      unreadable(file, Object.assign(new Error(`EACCES: permission denied, open '${file}'`), { code: 'EACCES' }))
        .message,
    ).toBe(
      '.kanban-supervisor/events.jsonl: the event history cannot be read (permission denied). ' +
        'Give yourself read access (chmod u+r .kanban-supervisor/events.jsonl) and try again.',
    );
    const dir = boardWithEvents(runLines('r', 1));
    const io = () =>
      withStore(dir, () => {
        throw Object.assign(new Error('EIO: i/o error, read'), { code: 'EIO' });
      });
    expect(io).toThrow(InputError);
    expect(io).toThrow(
      new RegExp(
        String.raw`events\.jsonl: the event history cannot be read \(i\/o error\)\. ` +
          String.raw`Move it aside \(mv .*events\.jsonl .*events\.jsonl\.old\) to start a new history, ` +
          String.raw`or restore it; the board itself is not affected\.$`,
      ),
    );
  });

  it('leaves a bug a bug: an error without a system code is not blamed on the file', () => {
    const dir = boardWithEvents(runLines('r', 1));
    expect(() =>
      withStore(dir, () => {
        throw new TypeError('oops');
      }),
    ).toThrow(TypeError);
    const nodeOwn = Object.assign(new RangeError('The value of "position" is out of range.'), {
      code: 'ERR_OUT_OF_RANGE',
    });
    expect(() =>
      withStore(dir, () => {
        throw nodeOwn;
      }),
    ).toThrow(nodeOwn);
  });
});
