import { EventEmitter } from 'node:events';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { supervise } from '../../src/run/supervise.js';
import { addUsage, checkUsage, emptySpend } from '../../src/spend.js';
import { boardWithTasks, events, read, role } from '../helpers.js';
import { boardText, fakeAgents, inputOf, priced } from './fake-agents.js';

function board(tasks: number, settings: string) {
  const dir = boardWithTasks(
    tasks,
    { 'roles/implementor.md': role(['node'], 'stdin: none\n') },
    `phase: execute\nsupervisor:\n${settings}`,
  );
  return { dir, file: path.join(dir, 'kanban.yaml') };
}

const quiet = { signals: new EventEmitter() };

describe('the budget is checked between steps: a reply paid for always reaches the Manager', () => {
  it(
    'stops with exit 5 after the step whose reply reached max_cost_usd, ' +
      'that reply handed to the Manager and its answer written',
    async () => {
      const { dir, file } = board(3, '  max_cost_usd: 1\n');
      const fake = fakeAgents({
        Implementor: [
          priced(0.6, '{"status": "ok", "message": "task 1 done"}'),
          priced(0.6, '{"status": "ok", "message": "task 2 done"}'),
        ],
      });
      const error = await supervise({ file, seams: { runAttempt: fake.runAttempt, ...quiet } }).catch(
        (e: unknown) => e,
      );
      expect(error).toMatchObject({
        exitCode: 5,
        message: expect.stringMatching(
          new RegExp(
            String.raw`^Stopped: this run's agents have spent \$1\.20, 2\.4k tokens, ` +
              String.raw`reaching max_cost_usd \(\$1\), the cap on this run's spend \(earlier runs of the board are ` +
              'not counted: `report --all` totals them all\\)\\. Every reply paid for reached the Manager ' +
              String.raw`and its answer is written; tasks\/003\.md is current\.`,
          ),
        ),
      });
      expect(fake.of('Implementor')).toHaveLength(2);
      // The second paid reply reached the Manager, whose answer moved the board on.
      expect(inputOf(fake.of('Manager')[1]!).result).toEqual({ status: 'ok', message: 'task 2 done' });
      expect(boardText(dir)).toMatch(/^current: tasks\/003\.md$/m);
      const log = read(dir, 'supervisor.log.md');
      expect(log.match(/^### \S+ Halt$/gm)).toHaveLength(1);
      expect(log).toMatch(
        new RegExp(
          String.raw`\*\*Agent:\*\* kanban-supervisor {2}\n\*\*Task:\*\* tasks\/003\.md {2}\n` +
            String.raw`\*\*Issue:\*\* Stopped: this run's agents have spent \$1\.20`,
        ),
      );
      expect(log).toContain('**Action:** Stopping (exit 5)');
    },
  );

  it(
    'a negative cost or token count is ignored with a note in its event, never subtracted: ' +
      '--max-cost still stops the run',
    async () => {
      const { dir, file } = board(5, '  max_cost_usd: 1\n');
      const negativeTokens = priced(0).replace('"output_tokens": 200', '"output_tokens": -5000');
      const fake = fakeAgents({ Implementor: [priced(-5), negativeTokens, priced(0.6), priced(0.6)] });
      await expect(supervise({ file, seams: { runAttempt: fake.runAttempt, ...quiet } })).rejects.toMatchObject({
        exitCode: 5,
      });
      expect(fake.of('Implementor')).toHaveLength(4);
      const finished = events(dir).filter((e) => e.type === 'attempt_finished' && e.role === 'Implementor');
      expect(finished.map((e) => e.usageIgnored)).toEqual([
        ['costUsd -5'],
        ['outputTokens -5000', 'totalTokens -4000'],
        undefined,
        undefined,
      ]);
      expect(finished.map((e) => e.usage)).toEqual([
        { inputTokens: 1000, outputTokens: 200, totalTokens: 1200 },
        { costUsd: 0, inputTokens: 1000 },
        expect.objectContaining({ costUsd: 0.6 }),
        expect.objectContaining({ costUsd: 0.6 }),
      ]);
    },
  );
});

describe('checkUsage and addUsage', () => {
  it('drop figures that are not finite and non-negative, and a total summed from one', () => {
    expect(checkUsage({ costUsd: -1, inputTokens: 10, outputTokens: 5, totalTokens: 15 })).toEqual({
      usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 },
      ignored: ['costUsd -1'],
    });
    expect(checkUsage({ costUsd: 0.5, inputTokens: -100, outputTokens: 5, totalTokens: -95 })).toEqual({
      usage: { costUsd: 0.5, outputTokens: 5 },
      ignored: ['inputTokens -100', 'totalTokens -95'],
    });
    expect(checkUsage({ costUsd: Number.NaN })).toEqual({ usage: undefined, ignored: ['costUsd NaN'] });
    expect(checkUsage({ costUsd: 0 })).toEqual({ usage: { costUsd: 0 }, ignored: [] });
  });

  it('never lets a figure from an old event lower a total', () => {
    const total = emptySpend();
    addUsage(total, { costUsd: 2, totalTokens: 10 });
    addUsage(total, { costUsd: -2, totalTokens: Number.POSITIVE_INFINITY });
    expect(total).toEqual({ costUsd: 2, tokens: 10, priced: 1 });
  });
});
