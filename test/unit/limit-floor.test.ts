import { EventEmitter } from 'node:events';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { limitWaitUntil } from '../../src/limits/limit-wait.js';
import { parseResetText } from '../../src/reply/reset-time.js';
import { supervise } from '../../src/run/supervise.js';
import { boardWithTasks, events, read, role } from '../helpers.js';
import { fakeAgents } from './fake-agents.js';
import { fakeWorld, START } from './fake-world.js';

// A CLI with no built-in knowledge: its role file says how it words a limit and its reset.
const FAILURES = 'failures:\n  usage_limit: ["limit reached, resets (?:at |in )?(?<reset>\\\\S+)$"]\n';

function board(settings: string) {
  const dir = boardWithTasks(
    1,
    { 'roles/implementor.md': role(['node'], `stdin: none\n${FAILURES}`) },
    `phase: execute\nsupervisor:\n  max_retries: 1\n${settings}`,
  );
  return { dir, file: path.join(dir, 'kanban.yaml') };
}

const quiet = { signals: new EventEmitter() };
const waits = (dir: string) => events(dir).filter((e) => e.type === 'limit_wait');
const HOUR_AGO = new Date(START - 3_600_000).toISOString();

describe('a usage limit whose reset cannot be waited for is a bounded wait with backoff, not a burst of calls', () => {
  it('a reset already past waits limit_wait, doubling on each repeat, and names the reset it did not use', async () => {
    const { dir, file } = board('  limit_wait: 1m\n');
    const world = fakeWorld();
    const limited = `stderr:limit reached, resets at ${HOUR_AGO}`;
    const fake = fakeAgents({ Implementor: [limited, limited, limited, limited] });
    await expect(
      supervise({ file, seams: { runAttempt: fake.runAttempt, clock: world.clock, ...quiet } }),
    ).resolves.toMatchObject({ reason: 'done' });
    expect(fake.of('Implementor')).toHaveLength(5);
    expect(waits(dir).map((e) => e.waitMs)).toEqual([60_000, 120_000, 240_000, 480_000]);
    expect(waits(dir)[0]).toMatchObject({ resetKnown: false, ignoredReset: HOUR_AGO });
    expect(world.elapsed()).toBe(900_000);
  });

  it(
    'a reset that stays past forever ends at max_limit_wait with exit 69 after a handful of calls, ' +
      'logged as a Halt',
    async () => {
      const { dir, file } = board('  limit_wait: 1m\n  max_limit_wait: 1h\n');
      const world = fakeWorld();
      // Were each limit re-run at once, this would be a burst: it answers ok after 50 calls to end such a test.
      const fake = fakeAgents({
        Implementor: Array.from({ length: 50 }, () => `stderr:limit reached, resets at ${HOUR_AGO}`),
      });
      const error = await supervise({
        file,
        seams: { runAttempt: fake.runAttempt, clock: world.clock, ...quiet },
      }).catch((e: unknown) => e);
      expect(error).toMatchObject({
        exitCode: 69,
        message: expect.stringMatching(
          /later than max_limit_wait \(1h00m\) lets this run wait after waiting 31m00s already\./,
        ),
      });
      // 1 + 2 + 4 + 8 + 16 minutes waited; the next 32 would pass the hour.
      expect(fake.of('Implementor')).toHaveLength(6);
      expect(world.elapsed()).toBe(31 * 60_000);
      const log = read(dir, 'supervisor.log.md');
      expect(log.match(/^### \S+ Halt$/gm)).toHaveLength(1);
      expect(log).toMatch(
        new RegExp(
          String.raw`\*\*Agent:\*\* Implementor {2}\n\*\*Task:\*\* tasks\/001\.md {2}\n` +
            String.raw`\*\*Issue:\*\* Usage limit \(node\) until \S+ after waiting 31m00s already, ` +
            String.raw`past max_limit_wait \(1h00m\)`,
        ),
      );
      expect(log).toContain('**Action:** Stopping (exit 69)');
    },
  );

  it('a reset too large for a Date is "no reset given", never a RangeError', async () => {
    const { dir, file } = board('  limit_wait: 2m\n');
    const world = fakeWorld();
    const fake = fakeAgents({
      Implementor: [
        'stderr:limit reached, resets in 99999999999999999999s',
        `stderr:limit reached, resets in ${'9'.repeat(400)}`,
      ],
    });
    await expect(
      supervise({ file, seams: { runAttempt: fake.runAttempt, clock: world.clock, ...quiet } }),
    ).resolves.toMatchObject({ reason: 'done' });
    expect(waits(dir).map((e) => [e.waitMs, e.resetKnown])).toEqual([
      [120_000, false],
      [240_000, false],
    ]);
  });

  it('a reset years away is taken for a misreading: waited for as if none was given', async () => {
    const { dir, file } = board('  limit_wait: 1m\n');
    const world = fakeWorld();
    const fake = fakeAgents({ Implementor: ['stderr:limit reached, resets at 2999-01-01T00:00:00Z'] });
    await expect(
      supervise({ file, seams: { runAttempt: fake.runAttempt, clock: world.clock, ...quiet } }),
    ).resolves.toMatchObject({ reason: 'done' });
    expect(waits(dir)).toEqual([
      expect.objectContaining({ waitMs: 60_000, resetKnown: false, ignoredReset: '2999-01-01T00:00:00.000Z' }),
    ]);
  });
});

describe('limitWaitUntil', () => {
  const now = START;
  it('waits until a reset ahead, plus a margin', () => {
    expect(limitWaitUntil(now, new Date(now + 90_000), 300_000, 0)).toEqual({ until: now + 120_000, resetKnown: true });
  });

  it('has a floor of a second even with limit_wait 0, doubling, and a cap of an hour', () => {
    expect([0, 1, 2, 3].map((n) => limitWaitUntil(now, null, 0, n).until - now)).toEqual([1000, 2000, 4000, 8000]);
    expect(limitWaitUntil(now, new Date(now), 300_000, 10).until - now).toBe(3_600_000);
    expect(limitWaitUntil(now, new Date(NaN), 300_000, 0)).toEqual({ until: now + 300_000, resetKnown: false });
  });
});

describe('parseResetText', () => {
  it('gives no reset for a time no Date can hold', () => {
    const at = new Date(START);
    expect(parseResetText('99999999999999999999s', 'UTC', at)).toBeNull();
    expect(parseResetText('9'.repeat(400), 'UTC', at)).toBeNull();
    expect(parseResetText('in 1e400s', 'UTC', at)).toBeNull();
    expect(parseResetText('90s', 'UTC', at)).toEqual(new Date(START + 90_000));
  });
});
