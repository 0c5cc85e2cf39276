import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { boardWithTasks, fixtureRole, read, runCli } from '../helpers.js';

// The agent's CLI words a limit so, as its role file declares.
const FAILURES = 'failures:\n  usage_limit: ["limit reached, resets (?:at |in )(?<reset>\\\\S+)$"]\n';
const SETTINGS = 'phase: execute\nsupervisor:\n  limit_wait: 1s\n  max_limit_wait: 5s\n';

function board(...script: string[]) {
  return boardWithTasks(
    1,
    { 'roles/implementor.md': fixtureRole('scripted.mjs', ['record.jsonl', ...script], `stdin: none\n${FAILURES}`) },
    SETTINGS,
  );
}

const spawns = (dir: string) => readFileSync(path.join(dir, 'record.jsonl'), 'utf8').trim().split('\n').length;

describe('a usage limit with a reset that cannot be waited for, with real processes', () => {
  it(
    'a reset long past is a backoff (1s, 2s, …) that ends at max_limit_wait with exit 69, ' +
      'not a burst of agent runs',
    async () => {
      const dir = board('json:limit reached, resets at 2020-01-01T00:00:00Z');
      const started = performance.now();
      // Today's main re-runs such an agent at once, forever: the timeout ends that.
      const result = await runCli(['kanban.yaml', '--quiet'], { cwd: dir, timeout: 30_000 });
      const took = performance.now() - started;
      expect(result.exitCode, result.stderr).toBe(69);
      expect(result.stderr).toMatch(
        /later than max_limit_wait \(5\.0s\) lets this run wait after waiting 3\.\ds already/,
      );
      // Waits of 1s and 2s, then the next (4s) would pass max_limit_wait: three runs of the agent.
      expect(spawns(dir)).toBe(3);
      expect(took).toBeGreaterThan(3000);
      expect(read(dir, 'supervisor.log.md')).toMatch(
        new RegExp(
          String.raw`^### \S+ Halt\n\n\*\*Agent:\*\* Implementor {2}\n\*\*Task:\*\* tasks\/001\.md {2}\n` +
            String.raw`\*\*Issue:\*\* Usage limit \(node\) until \S+ after waiting 3\.\ds already, ` +
            String.raw`past max_limit_wait \(5\.0s\)`,
          'm',
        ),
      );
    },
  );

  it('a reset too large for a date is no reset given: the run waits limit_wait, goes on, no RangeError', async () => {
    const dir = board('json:limit reached, resets in 99999999999999999999s', 'valid');
    const result = await runCli(['kanban.yaml'], { cwd: dir, timeout: 30_000 });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stderr).not.toMatch(/RangeError|Invalid time value/);
    expect(result.stdout).toMatch(
      /Implementor hit node's usage limit; waiting until \S+ \(1\.0s, no reset time given\)/,
    );
    expect(spawns(dir)).toBe(2);
  });
});
