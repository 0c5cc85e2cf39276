import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AGENTS, boardWithTasks, events, read, role, runCli, tempDir } from '../helpers.js';

// A stand-in for Claude Code outside the board folder, found by its absolute path: its first
// call is refused with a claude.ai plan's `rate_limit_event`, resetting 2 s later; then it replies.
const CLAUDE = path.join(AGENTS, 'limited-claude', 'claude');
// The fallback works 12 s a step: steps go to it until the limit's reset (+ the 30 s margin) is past.
const HELPER_MS = 12_000;

describe('a fallback agent, with real processes', () => {
  it(
    'finishes the steps of a role whose CLI hit its usage limit; the limited CLI is not called again until ' +
      'its reset, then takes the role back',
    async () => {
      const calls = path.join(tempDir('ks-calls-'), 'calls');
      const dir = boardWithTasks(4, {
        'roles/implementor.md': role(
          [CLAUDE, '-p', '--output-format', 'stream-json', '--verbose'],
          `stdin: prompt\nenv: { CALLS_FILE: ${JSON.stringify(calls)} }\nfallback: [helper]\n`,
        ),
        'roles/helper.md': role(
          ['node', path.join(AGENTS, 'slow-reply.mjs'), calls, 'helper', String(HELPER_MS)],
          'stdin: none\n',
        ),
      });
      const run = await runCli(['run', 'kanban.yaml'], { cwd: dir, timeout: 150_000 });
      expect(run.exitCode, run.stderr).toBe(0);
      const log = readFileSync(calls, 'utf8')
        .trim()
        .split('\n')
        .map((line) => {
          const [who, at] = line.split(' ');
          return { who, at: Number(at) };
        });
      const all = events(dir);
      const switches = all.filter((e) => e.type === 'agent_switched');
      expect(switches[0]).toMatchObject({
        step: 1,
        role: 'Implementor',
        from: 'roles/implementor.md',
        to: 'roles/helper.md',
        reason: 'usage_limit',
        cli: 'claude',
      });
      // The reset the CLI gave, plus the margin.
      const until = Date.parse(String(switches[0]?.until));
      const claude = log.filter((c) => c.who === 'claude').map((c) => c.at);
      expect(claude.length).toBeGreaterThanOrEqual(2);
      expect(claude[0]).toBeLessThan(until - 30_000);
      // Not called again until then, then called again.
      expect(claude.slice(1).every((at) => at >= until)).toBe(true);
      expect(switches.at(-1)).toMatchObject({ from: 'roles/helper.md', to: 'roles/implementor.md', reason: 'reset' });
      // Steps 1 and 2 at least were the fallback's; the last one the role's own CLI's.
      const workers = all.filter((e) => e.type === 'attempt_finished' && e.role === 'Implementor' && e.valid);
      const by = all.filter((e) => e.type === 'attempt_started' && e.role === 'Implementor');
      expect(workers.map((e) => e.step)).toEqual([1, 2, 3, 4]);
      expect(by.filter((e) => e.agent === 'helper').map((e) => e.step)).toEqual(expect.arrayContaining([1, 2]));
      expect(by.at(-1)).not.toHaveProperty('agent');
      // No wait, no retry spent, and it was said: the console, the Log.
      expect(all.filter((e) => e.type === 'limit_wait' || e.type === 'retry')).toEqual([]);
      expect(run.stdout).toMatch(/⇄ roles\/implementor\.md is limited until \S+ \(claude\); roles\/helper\.md takes/);
      expect(run.stdout).toContain("the usage limit is over; roles/implementor.md takes Implementor's steps again");
      expect(read(dir, 'supervisor.log.md')).toMatch(/Fallback[\s\S]*Usage limit \(claude\) of roles\/implementor\.md/);
      expect(read(dir, 'kanban.yaml')).toMatch(/current: null/);
    },
    150_000,
  );
});
