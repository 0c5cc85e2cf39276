import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { boardWithTasks, events, fixtureRole, read, runCli } from '../helpers.js';
import { recordedPids, survivors } from './procs.js';

// A role that leaves the CLI all the time it wants (30m), and tells its failures by their words.
const FAILURES = [
  'failures:',
  '  usage_limit: ["stream error.*rate limit"]',
  '  login: ["stream error.*invalid x-api-key"]',
  '  transient: ["stream error.*overloaded"]',
  '  login_hint: "Set FAKE_API_KEY."',
  '',
].join('\n');
const BOARD = 'phase: execute\nsupervisor:\n  kill_grace: 1s\n  limit_wait: 1s\n  transient_backoff: 1s\n';
const LINE = (error: string) =>
  `timestamp=2026-11-27T05:33:19.180Z level=ERROR message="stream error" error.error="AI_APICallError: ${error}"`;

async function runBoard(failing: number, errorLine: string, extra: string[] = []) {
  const dir = boardWithTasks(
    1,
    {
      'roles/implementor.md': fixtureRole(
        'retries-inside.mjs',
        ['pids.jsonl', String(failing), errorLine, ...extra],
        `stdin: none\ntimeout: 30m\n${FAILURES}`,
      ),
    },
    BOARD,
  );
  const started = Date.now();
  const result = await runCli(['kanban.yaml'], { cwd: dir });
  return { dir, result, seconds: (Date.now() - started) / 1000 };
}

const finished = (dir: string) => events(dir).filter((e) => e.type === 'attempt_finished' && e.role === 'Implementor');

describe("a CLI that retries a failure inside itself, read live by the role's failures: patterns", () => {
  it('stops the CLI at the first stderr line that shows a usage limit, waits, runs the attempt again', async () => {
    const { dir, result, seconds } = await runBoard(1, LINE('This request would exceed your rate limit.'));
    expect(result.exitCode, result.stderr).toBe(0);
    expect(finished(dir).map((e) => [e.end, e.failure ?? e.valid, e.attempt])).toEqual([
      ['gave-up', 'usage_limit', 1],
      ['exited', true, 1],
    ]);
    expect(finished(dir)[0]?.durationMs).toBeLessThan(10_000);
    expect(finished(dir)[0]?.issue).toMatch(/reported an error as node: .*stream error.*rate limit/);
    expect(events(dir).filter((e) => e.type === 'limit_wait')).toHaveLength(1);
    expect(events(dir).filter((e) => e.type === 'retry')).toEqual([]);
    expect(await survivors(recordedPids(path.join(dir, 'pids.jsonl')))).toEqual([]);
    expect(seconds).toBeLessThan(30);
  });

  it('stops for a person (exit 2) at the first line that shows a rejected key, quoted last', async () => {
    const { dir, result, seconds } = await runBoard(9, LINE('invalid x-api-key'));
    expect(result.exitCode, result.stderr).toBe(2);
    const last = result.stderr.trim().split('\n').at(-1) as string;
    expect(last).toMatch(/cannot work until someone logs in .*invalid x-api-key.*Set FAKE_API_KEY\./);
    expect(finished(dir).map((e) => [e.end, e.failure])).toEqual([['gave-up', 'login']]);
    expect(read(dir, 'kanban.yaml')).toMatch(/^current: tasks\/001\.md$/m);
    expect(seconds).toBeLessThan(20);
  });

  it('backs off an outage the CLI would retry for ever, then runs the same attempt again', async () => {
    const { dir, result } = await runBoard(1, LINE('Overloaded'));
    expect(result.exitCode, result.stderr).toBe(0);
    expect(finished(dir).map((e) => [e.end, e.failure ?? e.valid])).toEqual([
      ['gave-up', 'transient'],
      ['exited', true],
    ]);
    expect(events(dir).filter((e) => e.type === 'backoff')).toHaveLength(1);
  });

  it('leaves a matching line on stdout alone: the transcript is the agent talking, not its CLI failing', async () => {
    const { dir, result } = await runBoard(1, LINE('rate limit'), ['stdout']);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(finished(dir).map((e) => [e.end, e.valid])).toEqual([['exited', true]]);
  });
});
