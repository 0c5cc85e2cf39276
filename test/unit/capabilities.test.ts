import { describe, expect, it } from 'vitest';
import { Capabilities } from '../../src/loop/capability-fanout.js';
import type { Capability, FailedAttempt, LoopEnd, RunEnding } from '../../src/loop/context.js';

describe("a run's capabilities as one", () => {
  it(
    'tells each in the order listed, takes the first decision, merges fields and inputs, ' +
      'keeps the earliest deadline',
    async () => {
      const heard: string[] = [];
      const a: Capability = {
        event: (event) => void heard.push(`a:${event.type}`),
        beforeStep: () => undefined,
        beforeAttempt: async () => ({ sharedLimitIgnored: 'a' }),
        afterFailure: async () => undefined,
        managerInputs: () => ({ history: [] }),
        deadline: () => new Date(2000),
        summary: () => '$1.00',
      };
      const b: Capability = {
        event: (event) => void heard.push(`b:${event.type}`),
        beforeStep: () => ({ message: 'stop', edit: 'raise it' }),
        beforeAttempt: async () => ({}),
        afterFailure: async () => 'again',
        afterStep: () => [
          { role: 'Reviewer', name: "Reviewer's periodic run", inputs: () => ({ role: 'Reviewer', kanban_file: 'k' }) },
        ],
        deadline: () => new Date(1000),
        summary: () => undefined,
      };
      const all = new Capabilities([a, b, {}]);
      all.event({ type: 'done', time: '', run: 'r', steps: 1 });
      expect(heard).toEqual(['a:done', 'b:done']);
      expect(all.beforeStep({} as never, {} as never)).toEqual({ message: 'stop', edit: 'raise it' });
      expect(await all.beforeAttempt({} as never)).toEqual({ sharedLimitIgnored: 'a' });
      expect(await all.afterFailure({} as FailedAttempt)).toBe('again');
      expect(all.managerInputs()).toEqual({ history: [] });
      expect(all.afterStep('t', {} as never).map((step) => step.role)).toEqual(['Reviewer']);
      expect(all.deadline()).toEqual(new Date(1000));
      expect(all.summary()).toBe('$1.00');
      expect(all.resident).toBe(false);
      expect(new Capabilities([]).deadline()).toBeUndefined();
    },
  );

  it('runs the loop again only when one asks, and tells all of them the end at once', async () => {
    const ended: string[] = [];
    let release = () => {};
    const slow: Capability = {
      loopEnded: async () => 'again',
      runEnded: () => new Promise<void>((resolve) => (release = resolve)).then(() => void ended.push('slow')),
    };
    const quick: Capability = { runEnded: async () => void ended.push('quick') };
    const all = new Capabilities([slow, quick]);
    expect(all.resident).toBe(true);
    expect(await all.loopEnded({} as LoopEnd)).toBe('again');
    const end = all.runEnded({} as RunEnding);
    await new Promise((resolve) => setImmediate(resolve));
    expect(ended).toEqual(['quick']);
    release();
    await end;
    expect(ended).toEqual(['quick', 'slow']);
  });
});
