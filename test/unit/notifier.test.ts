import { describe, expect, it } from 'vitest';
import { Notifier, STOPPED_CAP_MS } from '../../src/notify/notifier.js';
import { parseNotifyEntry, type NotifyTarget } from '../../src/notify/target.js';
import { receiver } from '../e2e/receiver.js';
import { testEvent } from '../helpers.js';

const FILE = '/boards/night/kanban.yaml';

function notifier(url: string, warnings: string[], waitThresholdMs = 60_000): Notifier {
  const parsed = parseNotifyEntry(url);
  if (!parsed.ok || !('target' in parsed)) throw new Error(url);
  return new Notifier([parsed.target as NotifyTarget], { file: FILE, waitThresholdMs, warn: (m) => warnings.push(m) });
}

describe('the notifier of a run (a real HTTP server on 127.0.0.1)', () => {
  it('tells each --watch wait once, not again for the same wait, with the run and task from the events', async () => {
    const got = await receiver();
    const warnings: string[] = [];
    const n = notifier(`${got.base}/hook`, warnings);
    n.listener(testEvent('run_started', { board: 'kanban.yaml', pid: 1 }, 'R1'));
    n.listener(testEvent('step_started', { step: 1, role: 'Implementor', task: 'tasks/007.md', phase: null }, 'R1'));
    const wait = testEvent(
      'waiting',
      {
        for: 'board_change',
        outcome: 'halted_for_human',
        exitCode: 4,
        reason: 'ask',
        since: '2026-11-26T01:00:00.000Z',
        pid: 1,
        watching: 2,
        via: 'fs.watch',
      },
      'R1',
    );
    n.listener(wait);
    n.listener({ ...wait, via: 'polling', why: 'fs.watch failed' }); // the same wait, told again because fs.watch failed
    n.listener({ ...wait, since: '2026-11-26T02:00:00.000Z' });
    await n.flush();
    expect(got.json().map((x) => [x.event, x.run, x.task])).toEqual([
      ['waiting', 'R1', 'tasks/007.md'],
      ['waiting', 'R1', 'tasks/007.md'],
    ]);
    expect(warnings).toEqual([]);
  });

  it('tells a usage-limit wait only past its threshold, and the end with the last task', async () => {
    const got = await receiver();
    const n = notifier(`ntfy+${got.base}/topic`, [], 60_000);
    const limitWait = (waitMs: number) =>
      testEvent('limit_wait', {
        step: 1,
        role: 'Implementor',
        task: 'tasks/003.md',
        cli: 'codex',
        waitMs,
        until: '2026-11-26T03:00:00Z',
        reason: 'limited',
        resetKnown: true,
      });
    n.listener(limitWait(60_000));
    n.listener(testEvent('step_started', { step: 1, role: 'Implementor', task: 'tasks/003.md', phase: null }));
    n.listener(limitWait(60_001));
    n.end({ kind: 'done', exitCode: 0 }, 'Done.', { file: FILE, task: '', run: 'R2' });
    await n.flush();
    expect(got.got.map((r) => r.headers.title)).toEqual([
      expect.stringMatching(/^kanban-supervisor: night: waiting until \d\d:00$/),
      'kanban-supervisor: night: done (exit 0)',
    ]);
    expect(got.got[1]?.body).toBe(
      'Done.\nBoard: /boards/night/kanban.yaml · task: tasks/003.md · exit 0\nNext: See the message.',
    );
  });

  it('gives up at the cap on a receiver that never answers, with one warning naming the URL masked', async () => {
    const got = await receiver('never');
    const warnings: string[] = [];
    const n = notifier(`${got.base}/hook/SECRET?token=SECRET`, warnings);
    n.end({ kind: 'halted_for_human', exitCode: 4 }, 'halted', { file: FILE, task: 't', run: 'R' });
    const started = performance.now();
    await n.flush(300);
    expect(performance.now() - started).toBeLessThan(3_000);
    expect(warnings).toEqual([
      `the run's end could not be told to http://127.0.0.1:${got.port}/… (json): ` +
        `no answer before the run's end stopped waiting. The run's exit code is unchanged.`,
    ]);
  });

  it("after a signal, waits at most STOPPED_CAP_MS from the run's end, a hook run meanwhile counted in", async () => {
    const got = await receiver('never');
    const warnings: string[] = [];
    const n = notifier(`${got.base}/hook`, warnings);
    const ended = performance.now();
    n.end({ kind: 'interrupted', exitCode: 143 }, 'Interrupted by SIGTERM', { file: FILE, task: 't', run: 'R' });
    await new Promise((resolve) => setTimeout(resolve, 500)); // a hook runs
    await n.flush();
    const took = performance.now() - ended;
    expect(took).toBeGreaterThanOrEqual(STOPPED_CAP_MS - 50);
    expect(took).toBeLessThan(STOPPED_CAP_MS + 1_000);
    expect(warnings).toEqual([expect.stringMatching(/no answer before the run's end stopped waiting/)]);
  });
});
