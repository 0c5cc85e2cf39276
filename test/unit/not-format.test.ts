import { EventEmitter } from 'node:events';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunAttempt } from '../../src/agent/attempt.js';
import type { Clock } from '../../src/loop/world.js';
import { supervise } from '../../src/run/supervise.js';
import { boardWithTasks, events, read, role } from '../helpers.js';
import { exited as printed } from './fake-agents.js';

/** A CLI kanban-supervisor has no built-in knowledge of, described by its role file's `failures:`. */
const FAILURES = [
  'failures:',
  '  usage_limit: ["limit reached, resets in (?<reset>\\\\d+ ?s)", "^limit reached$"]',
  '  login: ["not logged in"]',
  '  transient: ["service overloaded"]',
  '  login_hint: "Run my-cli login."',
  '',
].join('\n');

function board(settings = '') {
  const dir = boardWithTasks(
    1,
    {
      'roles/implementor.md': role(['node'], `stdin: none\n${FAILURES}`),
      'roles/manager.md': role(['node'], 'stdin: json\n'),
    },
    `phase: execute\nsupervisor:\n  max_retries: 1\n${settings}`,
  );
  return { dir, file: path.join(dir, 'kanban.yaml') };
}

const MANAGER_DONE = JSON.stringify({ status: 'ok', message: 'all done', next_task: null, tasks: ['tasks/001.md'] });

/** The worker prints each of `outputs` in turn ([stdout, stderr]); the Manager ends the board. */
function agents(outputs: Array<[string, string?]>) {
  const worker: string[] = [];
  const runAttempt: RunAttempt = async (invocation) => {
    if (invocation.role === 'Manager') return printed(MANAGER_DONE);
    worker.push(invocation.tag);
    const [stdout, stderr] = outputs.shift() ?? ['{"status":"ok","message":"done"}'];
    return printed(stdout, stderr);
  };
  return { worker, runAttempt };
}

/** A clock whose sleeps pass at once, moving its time on. */
function fakeClock(start = Date.parse('2026-11-23T20:00:00Z')) {
  let t = start;
  const clock: Clock = { now: () => new Date(t), sleep: async (ms) => void (t += ms) };
  return { clock, at: () => t };
}

const quiet = { signals: new EventEmitter() };

describe('failures that are not invalid output', () => {
  it('waits out a usage limit until its reset (plus a margin), re-runs the same attempt, spends no retry', async () => {
    const { dir, file } = board();
    const { clock, at } = fakeClock();
    const { worker, runAttempt } = agents([
      ['', 'error: limit reached, resets in 90s'],
      ['', 'error: limit reached, resets in 90s'],
    ]);
    const result = await supervise({ file, seams: { runAttempt, clock, ...quiet } });
    expect(result).toMatchObject({ steps: 1, reason: 'done' });
    expect(worker).toHaveLength(3);
    expect(new Set(worker).size).toBe(1); // the very same invocation
    expect(events(dir).filter((e) => e.type === 'retry')).toEqual([]);
    const waits = events(dir).filter((e) => e.type === 'limit_wait');
    expect(waits).toHaveLength(2);
    expect(waits[0]).toMatchObject({
      role: 'Implementor',
      task: 'tasks/001.md',
      reason: 'error: limit reached, resets in 90s',
      waitMs: 120_000,
      resetKnown: true,
    });
    expect(events(dir).filter((e) => e.type === 'limit_resumed')).toHaveLength(2);
    expect(at() - Date.parse('2026-11-23T20:00:00Z')).toBe(240_000);
    expect(existsSync(path.join(dir, '.kanban-supervisor/waiting.json'))).toBe(false);
    expect(existsSync(path.join(dir, 'supervisor.log.md'))).toBe(false);
  });

  it('without a reset time, waits limit_wait, then twice as long', async () => {
    const { dir, file } = board('  limit_wait: 1m\n');
    const { clock } = fakeClock();
    const { runAttempt } = agents([
      ['', 'limit reached'],
      ['', 'limit reached'],
      ['', 'limit reached'],
    ]);
    await supervise({ file, seams: { runAttempt, clock, ...quiet } });
    expect(
      events(dir)
        .filter((e) => e.type === 'limit_wait')
        .map((e) => e.waitMs),
    ).toEqual([60_000, 120_000, 240_000]);
  });

  it(
    'ends with exit 69 when the reset is further off than max_limit_wait, saying when; ' +
      'a run started before then waits, never hitting the limit again',
    async () => {
      const { dir, file } = board('  max_limit_wait: 1h\n');
      const { clock, at } = fakeClock();
      const first = agents([['', 'limit reached, resets in 7200s']]);
      const error = await supervise({ file, seams: { runAttempt: first.runAttempt, clock, ...quiet } }).catch(
        (e: unknown) => e,
      );
      expect(error).toMatchObject({
        exitCode: 69,
        resetAt: new Date(at() + 7_230_000),
        message: expect.stringMatching(
          new RegExp(
            String.raw`^Implementor's node usage limit resets at .* \(in 2h00m\), ` +
              String.raw`later than max_limit_wait \(1h00m\) lets this run wait\. The board is unchanged; ` +
              String.raw`run again after `,
          ),
        ),
      });
      expect(JSON.parse(read(dir, '.kanban-supervisor/waiting.json'))).toMatchObject({
        for: 'usage_limit',
        until: new Date(at() + 7_230_000).toISOString(),
        role: 'Implementor',
      });

      // Started again an hour and a half later: it waits the rest (within max_limit_wait), then runs.
      const later = fakeClock(at() + 5_400_000);
      const second = agents([]);
      await supervise({ file, seams: { runAttempt: second.runAttempt, clock: later.clock, ...quiet } });
      expect(second.worker).toHaveLength(1);
      expect(later.at()).toBeGreaterThanOrEqual(Date.parse('2026-11-23T20:00:00Z') + 7_230_000);
      expect(existsSync(path.join(dir, '.kanban-supervisor/waiting.json'))).toBe(false);
    },
  );

  it('stops at the first attempt with exit 2 and the login hint when not logged in, logging a halt', async () => {
    const { dir, file } = board();
    const { worker, runAttempt } = agents([['', 'fatal: not logged in']]);
    await expect(supervise({ file, seams: { runAttempt, ...quiet } })).rejects.toMatchObject({
      exitCode: 2,
      message: expect.stringMatching(
        new RegExp(
          String.raw`^roles\/implementor\.md: Implementor's node cannot work until someone logs in or fixes its ` +
            String.raw`account: fatal: not logged in\. Run my-cli login\. Then run again`,
        ),
      ),
    });
    expect(worker).toHaveLength(1);
    expect(read(dir, 'supervisor.log.md')).toMatch(
      /Halt[\s\S]*Login missing or rejected \(node\): fatal: not logged in/,
    );
  });

  it(
    'backs off from a transient service error (doubling), not counted as a retry, ' +
      'and after transient_retries counts it as invalid output',
    async () => {
      const { dir, file } = board('  transient_retries: 2\n  transient_backoff: 10s\n');
      const { clock } = fakeClock();
      const overloaded: [string, string] = ['', 'service overloaded, try later'];
      const { worker, runAttempt } = agents([overloaded, overloaded, overloaded]);
      await supervise({ file, seams: { runAttempt, clock, ...quiet } });
      expect(worker).toHaveLength(4); // 1 + 2 backoffs, then a format retry that succeeds
      expect(
        events(dir)
          .filter((e) => e.type === 'backoff')
          .map((e) => e.waitMs),
      ).toEqual([10_000, 20_000]);
      expect(events(dir).filter((e) => e.type === 'retry')).toHaveLength(1);
    },
  );
});
