import { readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { boardWithTasks, events, fixtureRole, read, runCli } from '../helpers.js';

// The agent's CLI words a limit so (its role file says), with a reset an hour... long past.
const FAILURES = 'failures:\n  usage_limit: ["limit reached, resets at (?<reset>\\\\S+)$"]\n';

describe('one attempt numbering: attempt N of max_retries + 1, the same N everywhere', () => {
  it(
    'the console, supervisor.log.md, the events and the attempt files agree, ' +
      'and a re-run after a usage limit keeps its number',
    async () => {
      const record = 'record.jsonl';
      const implementor = fixtureRole(
        'scripted.mjs',
        [record, 'json:limit reached, resets at 2020-01-01T00:00:00Z', 'garbage', 'valid'],
        `stdin: none\n${FAILURES}`,
      );
      const dir = boardWithTasks(
        1,
        { 'roles/implementor.md': implementor },
        'phase: execute\nsupervisor:\n  max_retries: 2\n  limit_wait: 1s\n',
      );
      const result = await runCli([path.join(dir, 'kanban.yaml')]);
      expect(result.exitCode, result.stderr).toBe(0);

      // A reset already past was waited for as if none was given: limit_wait, not at once.
      expect(events(dir).filter((e) => e.type === 'limit_wait')).toEqual([
        expect.objectContaining({ waitMs: 1000, resetKnown: false, ignoredReset: '2020-01-01T00:00:00.000Z' }),
      ]);

      const finished = events(dir).filter((e) => e.type === 'attempt_finished' && e.role === 'Implementor');
      expect(finished.map((e) => [e.attempt, e.of, e.rerun])).toEqual([
        [1, 3, undefined],
        [1, 3, 1],
        [2, 3, undefined],
      ]);
      const run = String(events(dir)[0]?.run);
      expect(finished.map((e) => e.stdoutFile)).toEqual([
        `.kanban-supervisor/runs/${run}/000000001-implementor-1-tasks_001.failed.out`,
        `.kanban-supervisor/runs/${run}/000000001-implementor-1-tasks_001.rerun1.failed.out`,
        `.kanban-supervisor/runs/${run}/000000001-implementor-2-tasks_001.out`,
      ]);
      expect(
        readdirSync(path.join(dir, '.kanban-supervisor/runs', run)).filter((f) => f.includes('implementor')),
      ).toEqual([
        '000000001-implementor-1-tasks_001.failed.out',
        '000000001-implementor-1-tasks_001.rerun1.failed.out',
        '000000001-implementor-2-tasks_001.out',
      ]);
      expect(read(dir, `.kanban-supervisor/runs/${run}/000000001-implementor-1-tasks_001.rerun1.failed.out`)).toBe(
        'I did the thing, trust me\n',
      );

      // The console's numbers are the log's.
      expect(result.stdout).toContain('attempt 1/3 again · Implementor');
      expect(result.stdout).toMatch(/✗ Implementor attempt 1\/3: printed no JSON reply object/);
      expect(result.stdout).toContain('retry 1/2 with the exact same inputs');
      expect(result.stdout).toContain('attempt 2/3 · Implementor');
      const log = read(dir, 'supervisor.log.md');
      expect(log.match(/^### \S+ Retry Event$/gm)).toHaveLength(1);
      expect(log).toContain('**Attempt:** 1/2 (attempt 1/3 failed; retry 1 of 2 follows as attempt 2/3)');
    },
  );
});
