import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { boardWithTasks, fixtureRole, runCli, SEQUENTIAL_MANAGER, tempDir } from '../helpers.js';
import { receiver } from './receiver.js';

// The secret parts of a webhook: its path and its query.
const HOOK = '/hook/T0SECRETPATH/B1SECRETPATH?token=QSECRETQUERY42';
const FAILURES =
  'failures:\n  usage_limit: ["limit reached, resets in (?<reset>\\\\d+s)", "^limit reached$"]\n' +
  '  login: ["not logged in"]\n  login_hint: "Run my-cli login."\n';
const scripted = (...steps: string[]) =>
  fixtureRole('scripted.mjs', ['record.jsonl', ...steps], `stdin: none\n${FAILURES}`);

interface Case {
  name: string;
  exitCode: number;
  outcome: string;
  files: Record<string, string>;
  tasks?: number;
  header?: string;
  flags?: string[];
  message: RegExp;
  /** The task of the last step started, if not the first. */
  task?: string;
}

const CASES: Case[] = [
  {
    name: 'done',
    exitCode: 0,
    outcome: 'done',
    files: { 'roles/implementor.md': scripted('valid') },
    message: /^Done: the board has no next task \(1 step\(s\)/,
  },
  {
    name: 'halted by the Manager',
    exitCode: 4,
    outcome: 'halted_for_human',
    files: { 'roles/implementor.md': scripted('json:{"status":"blocked","message":"which port? Answer in the task"}') },
    message: /which port\? Answer in the task.*run again to continue/,
  },
  {
    name: 'retries exhausted',
    exitCode: 3,
    outcome: 'retries_exhausted',
    files: { 'roles/implementor.md': scripted('garbage') },
    header: 'phase: execute\nsupervisor:\n  max_retries: 1\n',
    message: /Implementor/,
  },
  {
    name: 'a missing login',
    exitCode: 2,
    outcome: 'bad_input',
    files: { 'roles/implementor.md': scripted('json:fatal: not logged in') },
    message: /cannot work until someone logs in.*Run my-cli login\./,
  },
  {
    name: 'a guard stop',
    exitCode: 5,
    outcome: 'guard_stop',
    tasks: 3,
    files: { 'roles/implementor.md': scripted('valid') },
    flags: ['--max-steps', '2'],
    message: /^kanban-supervisor: Stopped after max_steps \(2\) steps/,
    task: 'tasks/002.md',
  },
  {
    name: 'a usage-limit wait past its cap',
    exitCode: 69,
    outcome: 'limit_wait',
    files: { 'roles/implementor.md': scripted('json:limit reached, resets in 90s') },
    header: 'phase: execute\nsupervisor:\n  max_limit_wait: 5s\n',
    message: /usage limit resets at .* later than max_limit_wait/,
  },
  {
    name: 'its time limit',
    exitCode: 124,
    outcome: 'time_limit',
    files: { 'roles/implementor.md': scripted('hang') },
    flags: ['--max-time', '2s'],
    message: /time limit/,
  },
];

describe('notifications of how a run ended, received by a real HTTP server on 127.0.0.1', () => {
  it.each(CASES)('end of a run: $name — board, task, message as printed, exit code, what to do next', async (c) => {
    const got = await receiver();
    const dir = boardWithTasks(c.tasks ?? 1, c.files, c.header);
    const result = await runCli(['kanban.yaml', '--quiet', '--notify', `json+${got.base}${HOOK}`, ...(c.flags ?? [])], {
      cwd: dir,
    });
    expect(result.exitCode, result.stderr).toBe(c.exitCode);
    expect(got.got).toHaveLength(1);
    expect(got.got[0]?.url).toBe(HOOK);
    expect(got.got[0]?.headers['content-type']).toBe('application/json');
    const [notice] = got.json();
    const printed = (c.exitCode === 0 ? result.stdout : result.stderr).trim().split('\n').at(-1);
    expect(notice).toMatchObject({
      event: 'run_ended',
      board: path.join(dir, 'kanban.yaml'),
      task: c.task ?? 'tasks/001.md',
      outcome: c.outcome,
      exitCode: c.exitCode,
      message: printed,
    });
    expect(notice?.message).toMatch(c.message);
    expect(notice?.run).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(notice?.next).toEqual(expect.any(String));
    expect(Date.parse(String(notice?.time))).not.toBeNaN();
    expect(notice?.title).toContain(`(exit ${c.exitCode})`);
  });

  it("the end of a run: an unwritable board (exit 73), and the board's own supervisor.notify list", async () => {
    const got = await receiver();
    const outside = path.join(tempDir(), 'outside.yaml');
    const dir = boardWithTasks(
      1,
      { 'roles/implementor.md': fixtureRole('board-then-reply.mjs', [outside], 'stdin: none\n') },
      `phase: execute\nsupervisor:\n  notify: ["json+${got.base}${HOOK}"]\n`,
    );
    const result = await runCli(['kanban.yaml', '--quiet'], { cwd: dir });
    expect(result.exitCode, result.stderr).toBe(73);
    expect(got.json()).toEqual([
      expect.objectContaining({
        event: 'run_ended',
        outcome: 'unwritable',
        exitCode: 73,
        task: 'tasks/001.md',
        message: result.stderr.trim(),
      }),
    ]);
  });

  it('a board found finished tells nobody (a scheduler starting it again would page a person each time)', async () => {
    const got = await receiver();
    const dir = boardWithTasks(1, { 'roles/implementor.md': scripted('valid') }, 'phase: complete\n');
    const result = await runCli(['kanban.yaml', '--notify', `${got.base}/x`], { cwd: dir });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^Done: phase is complete/);
    expect(got.got).toEqual([]);
  });

  it('a usage-limit wait longer than supervisor.notify_wait is told as it begins, then the end', async () => {
    const got = await receiver();
    const dir = boardWithTasks(
      1,
      { 'roles/implementor.md': scripted('json:limit reached', 'valid') },
      'phase: execute\nsupervisor:\n  limit_wait: 3s\n  notify_wait: 2s\n',
    );
    const result = await runCli(['kanban.yaml', '--quiet', '--notify', `json+${got.base}${HOOK}`], { cwd: dir });
    expect(result.exitCode, result.stderr).toBe(0);
    const [wait, end] = got.json();
    expect(wait).toMatchObject({
      event: 'limit_wait',
      task: 'tasks/001.md',
      outcome: null,
      exitCode: null,
      message: expect.stringMatching(
        /^Implementor's node usage limit: waiting until \d\d:\d\d \(3\.0s\), nothing to do\.$/,
      ),
    });
    expect(end).toMatchObject({ event: 'run_ended', outcome: 'done', exitCode: 0 });
    expect(got.got).toHaveLength(2);
  });

  it('a usage-limit wait no longer than notify_wait is not told', async () => {
    const got = await receiver();
    const dir = boardWithTasks(
      1,
      { 'roles/implementor.md': scripted('json:limit reached', 'valid') },
      'phase: execute\nsupervisor:\n  limit_wait: 1s\n',
    );
    const result = await runCli(['kanban.yaml', '--quiet', '--notify', `json+${got.base}/x`], { cwd: dir });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(got.json().map((n) => n.event)).toEqual(['run_ended']);
  });

  it('Slack and ntfy get their own shapes (the format forced by a prefix on the loopback URL)', async () => {
    const [slack, ntfy] = await Promise.all([receiver(), receiver()]);
    const dir = boardWithTasks(
      1,
      { 'roles/implementor.md': scripted('garbage'), 'roles/manager.md': SEQUENTIAL_MANAGER },
      'phase: execute\nsupervisor:\n  max_retries: 0\n',
    );
    const result = await runCli(
      [
        'kanban.yaml',
        '--quiet',
        '--notify',
        `slack+${slack.base}/services/T0/B0/XSECRET`,
        '--notify',
        `ntfy+${ntfy.base}/my-topic`,
      ],
      { cwd: dir },
    );
    expect(result.exitCode).toBe(3);
    const line = result.stderr.trim();
    expect(slack.got).toHaveLength(1);
    expect(slack.got[0]?.headers['content-type']).toBe('application/json');
    const text = String((JSON.parse(slack.got[0]?.body ?? '{}') as { text?: unknown }).text);
    expect(Object.keys(JSON.parse(slack.got[0]?.body ?? '{}') as object)).toEqual(['text']);
    expect(text.split('\n')).toEqual([
      expect.stringMatching(/^kanban-supervisor: ks-\w+: retries exhausted \(exit 3\)$/),
      line,
      `Board: ${path.join(dir, 'kanban.yaml')} · task: tasks/001.md · exit 3`,
      expect.stringMatching(/^Next: Fix the agent or its role file, then run again\.$/),
    ]);
    expect(ntfy.got).toHaveLength(1);
    expect(ntfy.got[0]?.url).toBe('/my-topic');
    expect(ntfy.got[0]?.headers).toMatchObject({
      title: expect.stringMatching(/^kanban-supervisor: ks-\w+: retries exhausted \(exit 3\)$/),
      priority: 'high',
      tags: 'warning',
      'content-type': 'text/plain; charset=utf-8',
    });
    expect(ntfy.got[0]?.body.split('\n')[0]).toBe(line);
  });
});
