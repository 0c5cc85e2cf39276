import type { EventOf } from '../../src/event-types.js';
import { EventEmitter } from 'node:events';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunAttempt } from '../../src/agent/attempt.js';
import { checkBoard } from '../../src/board/check.js';
import { dryRun } from '../../src/commands/dry-run.js';
import { formatDryRun } from '../../src/commands/dry-run-text.js';
import { status } from '../../src/commands/status.js';
import { formatStatus } from '../../src/commands/status-text.js';
import type { Clock } from '../../src/loop/world.js';
import { supervise } from '../../src/run/supervise.js';
import { eventLine } from '../../src/progress/event-lines.js';
import { CAPABILITY_EVENTS } from '../../src/run/capability-list.js';
import { createStyle } from '../../src/util/style.js';
import { attemptRow } from '../../src/report/attempt-row.js';
import { attemptFrom } from '../../src/events/records.js';
import { boardWithTasks, events, read, role } from '../helpers.js';
import { exited } from './fake-agents.js';

const START = Date.parse('2026-11-23T20:00:00Z');
// A CLI without an adapter whose role file says how it words a limit (its account stays on the board).
const FAILURES =
  'stdin: none\nfailures:\n  usage_limit: ["limit reached, resets in (?<reset>\\\\d+ ?s)"]\n  login: ["please log in"]\n';

function board(tasks: number, implementor: string, files: Record<string, string> = {}) {
  const dir = boardWithTasks(tasks, {
    'roles/implementor.md': implementor,
    'roles/helper.md': role(['node', 'helper.mjs'], FAILURES),
    ...files,
  });
  return { dir, file: path.join(dir, 'kanban.yaml') };
}

const PRIMARY = role(['node', 'primary.mjs'], `${FAILURES}fallback: [helper]\n`);
const OK = '{"status":"ok","message":"done"}';

/**
 * Agents on a clock whose sleeps pass at once: each program (primary.mjs, helper.mjs) prints the
 * next item of its script (`stderr:` text exits 1), else an ok reply; each call takes `takesMs`
 * of the clock and is recorded with its time. The Manager moves to the next task.
 */
function world(scripts: Record<string, string[]>, takesMs = 0) {
  let t = START;
  const clock: Clock = { now: () => new Date(t), sleep: async (ms) => void (t += ms) };
  const calls: Array<{ program: string; at: number }> = [];
  const runAttempt: RunAttempt = async (invocation) => {
    if (invocation.role === 'Manager') {
      const input = JSON.parse(invocation.env.KANBAN_INPUT ?? '{}') as { done_task: string; tasks: string[] };
      const next = input.tasks[input.tasks.indexOf(input.done_task) + 1] ?? null;
      return exited(JSON.stringify({ status: 'ok', message: 'next', next_task: next, tasks: input.tasks }));
    }
    const program = String(invocation.args[0]);
    calls.push({ program, at: t - START });
    t += takesMs;
    const next = scripts[program]?.shift() ?? OK;
    return next.startsWith('stderr:') ? exited('', next.slice(7)) : exited(next);
  };
  const at = (program: string) => calls.filter((c) => c.program === program).map((c) => c.at);
  return { clock, runAttempt, calls, at, seams: { runAttempt, clock, signals: new EventEmitter() } };
}

describe('fallback agents (SPEC §5c)', () => {
  it("take a limited role's steps at once, the limited agent is not called before its reset, and runs again after it", async () => {
    const { dir, file } = board(4, PRIMARY);
    // Each call takes a minute of the clock; the limit, read at 1 min, resets 100 s later (+ the 30 s margin).
    const w = world({ 'primary.mjs': ['stderr:limit reached, resets in 100s'] }, 60_000);
    await expect(supervise({ file, seams: w.seams })).resolves.toMatchObject({ reason: 'done' });
    expect(w.at('primary.mjs')).toEqual([0, 240_000]);
    expect(w.at('helper.mjs')).toEqual([60_000, 120_000, 180_000]);
    const all = events(dir);
    // No wait, no retry spent: the helper's attempt is the same attempt 1, run again.
    expect(all.filter((e) => e.type === 'limit_wait' || e.type === 'retry')).toEqual([]);
    const switches = all.filter((e) => e.type === 'agent_switched');
    expect(switches).toMatchObject([
      {
        step: 1,
        role: 'Implementor',
        from: 'roles/implementor.md',
        to: 'roles/helper.md',
        reason: 'usage_limit',
        until: new Date(START + 190_000).toISOString(),
        cli: 'node',
      },
      { step: 4, role: 'Implementor', from: 'roles/helper.md', to: 'roles/implementor.md', reason: 'reset' },
    ]);
    const started = all.filter((e) => e.type === 'attempt_started' && e.role === 'Implementor');
    expect(started.map((e) => [e.step, e.attempt, e.rerun ?? 0, e.agent ?? null])).toEqual([
      [1, 1, 0, null],
      [1, 1, 1, 'helper'],
      [2, 1, 0, 'helper'],
      [3, 1, 0, 'helper'],
      [4, 1, 0, null],
    ]);
    const log = read(dir, 'supervisor.log.md');
    expect(log).toContain('Fallback');
    expect(log).toMatch(/\*\*Issue:\*\* Usage limit \(node\) of roles\/implementor\.md until \S+/);
    expect(log).toContain(
      "**Action:** roles/helper.md takes Implementor's steps until then (fallback:); no retry is spent",
    );
    expect(log).toContain("**Action:** roles/implementor.md takes Implementor's steps again");
    // status says which agent did a task's last attempt.
    const text = formatStatus(status({ file }), new Date(START + 300_000));
    expect(text).toMatch(/tasks\/002\.md\s+Implementor\s+✓ replied ok: done \(.*by fallback helper\)/);
    expect(text).toMatch(/tasks\/004\.md\s+Implementor\s+✓ replied ok: done \([^)]*step 4 of the last run\) —/);
  });

  it('wait, when every agent of the chain is limited, only until the first of them may be called again', async () => {
    const { dir, file } = board(1, PRIMARY);
    const w = world({
      'primary.mjs': ['stderr:limit reached, resets in 3000s'],
      'helper.mjs': ['stderr:limit reached, resets in 100s'],
    });
    await expect(supervise({ file, seams: w.seams })).resolves.toMatchObject({ reason: 'done' });
    expect(w.at('primary.mjs')).toEqual([0]);
    expect(w.at('helper.mjs')).toEqual([0, 130_000]);
    const waits = events(dir).filter((e) => e.type === 'limit_wait');
    expect(waits).toMatchObject([{ step: 1, role: 'Implementor', waitMs: 130_000, resetKnown: true }]);
    expect(String(waits[0]?.reason)).toMatch(
      /^every agent of Implementor's fallback chain is limited \(roles\/implementor\.md until .*, roles\/helper\.md until .*\): limit reached/,
    );
  });

  it('never switch for a format retry: the retry runs the very same agent and invocation (SPEC §4)', async () => {
    const { dir, file } = board(1, PRIMARY);
    const w = world({ 'primary.mjs': ['no json here'] });
    await expect(supervise({ file, seams: w.seams })).resolves.toMatchObject({ reason: 'done' });
    expect(w.at('primary.mjs')).toEqual([0, 0]);
    expect(w.at('helper.mjs')).toEqual([]);
    expect(events(dir).filter((e) => e.type === 'retry')).toHaveLength(1);
    expect(events(dir).filter((e) => e.type === 'agent_switched')).toEqual([]);
  });

  it('stop the run for a missing login (exit 2): a fallback does not stand in for a person', async () => {
    const { file } = board(1, PRIMARY);
    const w = world({ 'primary.mjs': ['stderr:please log in'] });
    await expect(supervise({ file, seams: w.seams })).rejects.toMatchObject({ exitCode: 2 });
    expect(w.at('helper.mjs')).toEqual([]);
  });
});

const PLAIN = createStyle(false);

describe('a switch of agents, as a person hears of it', () => {
  const switched: EventOf<'agent_switched'> = {
    time: new Date(START).toISOString(),
    type: 'agent_switched',
    run: 'r1',
    step: 2,
    role: 'Implementor',
    task: 'tasks/002.md',
    from: 'roles/implementor.md',
    to: 'roles/implementor-codex.md',
    reason: 'usage_limit',
    cli: 'claude',
    until: new Date(START + 3_600_000).toISOString(),
  };

  // Its notification, each way: notifications' own test (notify.test.ts).
  it('is a console line, each way', () => {
    expect(eventLine(switched, PLAIN, CAPABILITY_EVENTS)).toMatch(
      /^ {2}⇄ roles\/implementor\.md is limited until \d\d:\d\d \(claude\); roles\/implementor-codex\.md takes Implementor's steps \(fallback:\)$/,
    );
    const back: EventOf<'agent_switched'> = {
      ...switched,
      from: switched.to,
      to: switched.from,
      reason: 'reset',
      cli: undefined,
      until: undefined,
    };
    expect(eventLine(back, PLAIN, CAPABILITY_EVENTS)).toBe(
      "  ⇄ the usage limit is over; roles/implementor.md takes Implementor's steps again",
    );
  });

  it("is in the report's row of an attempt a fallback ran", () => {
    const started: EventOf<'attempt_started'> = {
      time: switched.time,
      type: 'attempt_started',
      run: 'r1',
      step: 2,
      role: 'Implementor',
      task: 'tasks/002.md',
      attempt: 1,
      of: 4,
      command: 'codex exec',
      timeoutMs: 1000,
      agent: 'implementor-codex',
    };
    expect(attemptRow(attemptFrom(started, 'tasks/002.md'), (p) => p)).toContain(
      '<td>Implementor (fallback implementor-codex)</td>',
    );
  });
});

describe('validate and fallback:', () => {
  it('names a fallback role file that does not exist, at its line, with the fix', () => {
    const { file } = board(1, role(['node', 'primary.mjs'], 'stdin: none\nfallback: [helper, codexer]\n'));
    const problems = checkBoard({ file }).problems;
    expect(problems).toContainEqual({
      file: 'roles/implementor.md',
      line: 4,
      message: expect.stringMatching(
        /^roles\/codexer\.md does not exist, but roles\/implementor\.md names it in fallback:\. Create it .* or change the role\.$/,
      ),
    });
  });

  it('refuses a circle of fallbacks, once, at the entry that closes it', () => {
    const { file } = board(1, role(['node', 'primary.mjs'], 'stdin: none\nfallback: [helper]\n'), {
      'roles/helper.md': role(['node', 'helper.mjs'], 'stdin: none\nfallback: [implementor]\n'),
    });
    const problems = checkBoard({ file }).problems.filter((p) => p.message.includes('circle'));
    expect(problems).toEqual([
      {
        file: 'roles/helper.md',
        line: 4,
        message:
          'fallback: roles/implementor.md → roles/helper.md → roles/implementor.md is a circle: ' +
          "a role's fallbacks may not lead back to it. Remove implementor from fallback: here.",
      },
    ]);
  });

  it('--dry-run names the fallbacks of the role it would run, in turn', async () => {
    const { file } = board(1, role(['node', 'primary.mjs'], 'stdin: none\nfallback: [helper]\n'), {
      'roles/helper.md': role(['node', 'helper.mjs'], 'stdin: none\nfallback: [third]\n'),
      'roles/third.md': role(['node', 'third.mjs'], 'stdin: none\n'),
    });
    expect(formatDryRun(await dryRun(file, {}))).toContain(
      '  fallback   roles/helper.md, roles/third.md (in turn, while an agent before is usage-limited)\n',
    );
  });

  it('refuses an entry that is no role name', () => {
    const { file } = board(1, role(['node', 'primary.mjs'], 'stdin: none\nfallback: [../x]\n'));
    expect(checkBoard({ file }).problems[0]).toMatchObject({
      file: 'roles/implementor.md',
      line: 4,
      message: expect.stringContaining('e.g. `fallback: [implementor-codex]` for roles/implementor-codex.md'),
    });
  });
});
