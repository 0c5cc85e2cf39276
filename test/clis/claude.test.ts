import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeModelServer, type FakeModelServer } from '../fixtures/fake-model-server.mjs';
import { events, read } from '../helpers.js';
import { agentEnv, editBoard, initBoard, installedVersion, scriptedModel, startSupervisor } from './harness.js';
import { agentCliSuite } from './suite.js';

agentCliSuite('claude');

describe('the real claude, handed the reply schema and the budget by the supervisor', () => {
  let server: FakeModelServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });
  beforeAll(() => {
    installedVersion('claude');
  });
  const generations = () =>
    (server as FakeModelServer).requests.filter((r) => r.startsWith('POST /v1/messages')).length;

  it(
    "gets the run's budget left as --max-budget-usd: a worker call that reaches it stops itself, " +
      'and the run stops with exit 5 instead of retrying',
    async () => {
      const bodies: string[] = [];
      const model = scriptedModel([]);
      // More than the whole budget at these figures, by Claude Code's own price table: $0.2125 a call
      // in 2.1.197, $0.17 in 2.1.332 (test/fixtures/recorded/NOTES.md).
      server = await startFakeModelServer({
        mode: 'reply',
        usage: { input: 40_000, output: 500 },
        text: (request) => {
          bodies.push(JSON.stringify(request.body));
          return model(request);
        },
      });
      const env = agentEnv('claude', server.url);
      const dir = await initBoard('claude', env);
      const before = read(dir, 'kanban.yaml');

      const run = await startSupervisor(['kanban.yaml', '--timeout', '90s', '--max-cost', '0.1'], env, dir);
      expect(run.exitCode, run.stderr).toBe(5);
      expect(run.stderr).toMatch(
        new RegExp(
          String.raw`Stopped: this run's agents have spent \$0\.(?:1[1-9]|2)\d*(?:, [\d.]+k tokens)?, ` +
            String.raw`reaching max_cost_usd \(\$0\.1\), and Implementor gave no reply for tasks\/001-example\.md ` +
            String.raw`within it \(reported an error as Claude Code \(error_max_budget_usd\): ` +
            String.raw`Reached maximum budget \(\$0\.1\).*\); a retry would spend past it\. The board is unchanged\.`,
        ),
      );
      // Claude Code read the option: it tells the model the budget it has.
      expect(bodies).toHaveLength(1);
      expect(bodies[0]).toContain('USD budget: $0/$0.1;');
      expect(events(dir).filter((e) => e.type === 'attempt_finished')).toHaveLength(1);
      expect(events(dir).filter((e) => e.type === 'retry')).toEqual([]);
      expect(read(dir, 'supervisor.log.md')).toMatch(/Halt[\s\S]*Stopping \(exit 5\); the board is unchanged/);
      expect(read(dir, 'kanban.yaml')).toBe(before);
    },
  );

  it(
    'that the model never meets within its run is a format failure: one logged retry with the same command, ' +
      'then exit 3',
    async () => {
      // The model's answer, given through Claude Code's StructuredOutput tool, has a status the schema refuses.
      server = await startFakeModelServer({ mode: 'reply', text: 'Done.\n{"status":"done","message":"all of it"}' });
      const env = agentEnv('claude', server.url);
      const dir = await initBoard('claude', env);
      editBoard(dir, (text) => text.replace('  max_retries: 3\n', '  max_retries: 1\n'));

      const run = await startSupervisor(['kanban.yaml', '--timeout', '90s'], env, dir);
      expect(run.exitCode, run.stderr).toBe(3);
      const log = read(dir, 'supervisor.log.md');
      expect(log.match(/^### \S+ Retry Event$/gm)).toHaveLength(1);
      expect(log).toMatch(
        new RegExp(
          String.raw`\*\*Issue:\*\* Invalid output format: Implementor \(claude -p .*\) ` +
            String.raw`reported an error as Claude Code \(error_max_structured_output_retries\): ` +
            String.raw`Failed to provide valid structured output after 5 attempts`,
        ),
      );
      const attempts = events(dir).filter((e) => e.type === 'attempt_started');
      expect(attempts).toHaveLength(2);
      expect(attempts[0]?.command).toBe(attempts[1]?.command);
      expect(
        events(dir)
          .filter((e) => e.type === 'attempt_finished')
          .map((e) => e.failure),
      ).toEqual(['invalid', 'invalid']);
      // Claude Code asked the model five times within each of the two runs.
      expect(generations()).toBe(10);
    },
  );
});
