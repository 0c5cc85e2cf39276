import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AGENTS, boardWithTasks, copyExampleBoard, events, fixtureRole, read, role, runCli } from '../helpers.js';

const scripted = (record: string, ...steps: string[]) => fixtureRole('scripted.mjs', [record, ...steps]);

describe('the supervisor loop', () => {
  it('runs the example board to completion from a fresh copy', async () => {
    const dir = copyExampleBoard();
    const result = await runCli(['kanban.yaml'], { cwd: dir });
    expect(result.stderr).toBe('');
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(/Done: the board has no next task \(3 step\(s\)/);
    const board = read(dir, 'kanban.yaml');
    expect(board).toMatch(/^current: null {3}# the task to run now/m);
    expect(board).toMatch(/^phase: complete$/m);
    for (const task of ['001-greet', '002-count', '003-review']) {
      const text = read(dir, `tasks/${task}.md`);
      expect(text).toMatch(/^status: done$/m);
      expect(text).toMatch(/## Work log/);
    }
    expect(read(dir, 'out/count.txt').trim()).toBe('3');
    const roles = events(dir)
      .filter((e) => e.type === 'step_started')
      .map((e) => e.role);
    expect(roles).toEqual(['Implementor', 'Implementor', 'Architect']);
  });

  it('is done at once, touching nothing, when current is null or the phase is complete', async () => {
    for (const header of ['phase: execute\ncurrent: null\n', 'phase: complete\ncurrent: tasks/001.md\n']) {
      const dir = boardWithTasks(1, { 'roles/implementor.md': role(['false']) });
      const text = read(dir, 'kanban.yaml').replace(/^phase: execute\ncurrent: tasks\/001.md\n/, header);
      writeFileSync(path.join(dir, 'kanban.yaml'), text);
      const result = await runCli([path.join(dir, 'kanban.yaml')]);
      expect(result.exitCode).toBe(0);
      expect(read(dir, 'kanban.yaml')).toBe(text);
    }
  });

  it(
    'retries a worker that prints garbage twice with byte-identical argv, stdin, env and cwd, ' +
      'logging exactly 2 retries',
    async () => {
      const dir = boardWithTasks(1, {});
      const record = path.join(dir, 'record.jsonl');
      writeFileSync(path.join(dir, 'roles/implementor.md'), scripted(record, 'garbage', 'bad-status', 'valid'));
      const result = await runCli([path.join(dir, 'kanban.yaml')]);
      expect(result.exitCode).toBe(0);
      const attempts = readFileSync(record, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(attempts).toHaveLength(3);
      for (const attempt of attempts.slice(1)) {
        expect(attempt.argv).toEqual(attempts[0]?.argv);
        expect(attempt.stdin).toBe(attempts[0]?.stdin);
        expect(attempt.env).toEqual(attempts[0]?.env);
        expect(attempt.cwd).toBe(attempts[0]?.cwd);
      }
      expect(attempts[0]?.cwd).toBe(dir);
      expect(JSON.parse(String(attempts[0]?.stdin))).toEqual({
        role: 'Implementor',
        kanban_file: 'kanban.yaml',
        task_file: 'tasks/001.md',
      });
      const env = attempts[0]?.env as Record<string, string>;
      expect(env).toMatchObject({
        KANBAN_ROLE: 'Implementor',
        KANBAN_FILE: 'kanban.yaml',
        KANBAN_TASK_FILE: 'tasks/001.md',
        KANBAN_DONE_TASK: '',
      });
      expect(JSON.parse(env.KANBAN_INPUT as string)).toEqual(JSON.parse(String(attempts[0]?.stdin)));

      const log = read(dir, 'supervisor.log.md');
      expect(log.match(/^### \S+ Retry Event$/gm)).toHaveLength(2);
      expect(log).toContain('**Attempt:** 1/3 (attempt 1/4 failed; retry 1 of 3 follows as attempt 2/4)');
      expect(log).toContain('**Attempt:** 2/3 (attempt 2/4 failed; retry 2 of 3 follows as attempt 3/4)');
      expect(log).toContain('**Issue:** Invalid output format: Implementor');
      expect(log).toContain('/status must be one of ok, blocked, error, escalate');
      expect(log).toContain('I did the thing, trust me');
      expect(log).toContain('**Action:** Rescheduling with exact same parameters');
      expect(events(dir).filter((e) => e.type === 'retry')).toHaveLength(2);
    },
  );

  it('stops with exit 3 after 4 attempts of an always-invalid worker, leaving kanban.yaml byte-identical', async () => {
    const dir = boardWithTasks(2, {});
    const record = path.join(dir, 'record.jsonl');
    writeFileSync(path.join(dir, 'roles/implementor.md'), scripted(record, 'garbage'));
    const before = read(dir, 'kanban.yaml');
    const result = await runCli([path.join(dir, 'kanban.yaml')]);
    expect(result.exitCode).toBe(3);
    expect(readFileSync(record, 'utf8').trim().split('\n')).toHaveLength(4);
    expect(read(dir, 'kanban.yaml')).toBe(before);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(
      new RegExp(
        String.raw`Implementor gave no valid reply for tasks\/001\.md in 4 ` +
          String.raw`attempt\(s\).*supervisor\.log\.md.*roles\/implementor\.md`,
      ),
    );
    const log = read(dir, 'supervisor.log.md');
    expect(log.match(/Retry Event/g)).toHaveLength(3);
    expect(log).toMatch(/### \S+ Halt/);
    const runs = events(dir).filter((e) => e.type === 'attempt_finished');
    expect(runs).toHaveLength(4);
    for (const run of runs)
      expect(readFileSync(path.join(dir, String(run.stdoutFile)), 'utf8')).toBe('I did the thing, trust me\n');
  });

  it('honours --max-retries from the command line over the board setting', async () => {
    const dir = boardWithTasks(1, {});
    const record = path.join(dir, 'record.jsonl');
    writeFileSync(path.join(dir, 'roles/implementor.md'), scripted(record, 'empty'));
    const result = await runCli([path.join(dir, 'kanban.yaml'), '--max-retries', '1']);
    expect(result.exitCode).toBe(3);
    expect(readFileSync(record, 'utf8').trim().split('\n')).toHaveLength(2);
  });

  it.each([
    [
      'a next_task not in tasks',
      '{"status":"ok","message":"m","next_task":"tasks/002.md","tasks":["tasks/001.md"]}',
      '/next_task "tasks/002.md" is not in /tasks',
    ],
    [
      'a task outside the board',
      '{"status":"ok","message":"m","next_task":null,"tasks":["../escape.md"]}',
      'leaves the board folder',
    ],
    [
      'a task file that does not exist',
      '{"status":"ok","message":"m","next_task":"tasks/404.md","tasks":["tasks/404.md"]}',
      'is not an existing file',
    ],
    ['no tasks field', '{"status":"ok","message":"m","next_task":null}', 'is missing the required field "tasks"'],
  ])('treats a Manager reply with %s as invalid and retries the Manager', async (_, bad, issue) => {
    const dir = boardWithTasks(2, { 'roles/implementor.md': fixtureRole('scripted.mjs', ['/dev/null']) });
    const record = path.join(dir, 'manager.jsonl');
    const good = '{"status":"ok","message":"all done","next_task":null,"tasks":["tasks/001.md","tasks/002.md"]}';
    writeFileSync(path.join(dir, 'roles/manager.md'), scripted(record, `json:${bad}`, `json:${good}`));
    const result = await runCli([path.join(dir, 'kanban.yaml')]);
    expect(result.exitCode).toBe(0);
    expect(read(dir, 'supervisor.log.md')).toContain(issue);
    expect(read(dir, 'supervisor.log.md')).toContain('**Task:** kanban.yaml (done_task: tasks/001.md)');
    const attempts = readFileSync(record, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { stdin: string });
    expect(attempts).toHaveLength(2);
    expect(attempts[1]?.stdin).toBe(attempts[0]?.stdin);
    expect(JSON.parse(attempts[0]?.stdin as string)).toEqual({
      role: 'Manager',
      kanban_file: 'kanban.yaml',
      done_task: 'tasks/001.md',
      tasks: ['tasks/001.md', 'tasks/002.md'],
      result: { status: 'ok', message: 'done' },
      history: [
        expect.objectContaining({ step: 1, task: 'tasks/001.md', role: 'Implementor', status: 'ok', attempts: 1 }),
      ],
    });
    expect(read(dir, 'kanban.yaml')).toMatch(/^current: null$/m);
  });

  it(
    'hands a worker reply that is not ok to the Manager untouched, applies its answer and exits 4 with its ' +
      'message when it escalates',
    async () => {
      const reply = {
        status: 'blocked',
        message: 'need a database password',
        extra: { kept: [1, 2], 'odd key': null },
      };
      const dir = boardWithTasks(2, {
        'roles/implementor.md': fixtureRole('scripted.mjs', ['/dev/null', `json:${JSON.stringify(reply)}`]),
      });
      const record = path.join(dir, 'manager.jsonl');
      const answer = {
        status: 'escalate',
        message: 'a person must give the password',
        next_task: 'tasks/002.md',
        tasks: ['tasks/002.md', 'tasks/001.md'],
      };
      writeFileSync(path.join(dir, 'roles/manager.md'), scripted(record, `json:${JSON.stringify(answer)}`));
      const result = await runCli([path.join(dir, 'kanban.yaml')]);
      expect(result.exitCode).toBe(4);
      expect(result.stderr).toMatch(
        /The Manager halted for a person \(status escalate\).*a person must give the password/,
      );
      const received = JSON.parse(JSON.parse(readFileSync(record, 'utf8')).stdin as string) as { result: unknown };
      expect(received.result).toEqual(reply);
      const board = read(dir, 'kanban.yaml');
      expect(board).toMatch(/^current: tasks\/002.md$/m);
      expect(board).toMatch(/tasks:\n {2}- tasks\/002.md\n {2}- tasks\/001.md\n/);
    },
  );

  it('keeps comments, key order, unknown keys and formatting of kanban.yaml through a run', async () => {
    const dir = boardWithTasks(3, { 'roles/implementor.md': fixtureRole('scripted.mjs', ['/dev/null']) });
    const original = [
      '# My board — keep this comment',
      'owner: ada            # unknown key, kept',
      'phase: execute',
      "current: 'tasks/001.md'   # trailing comment",
      'tasks:',
      '  # the plan',
      '  - tasks/001.md   # first',
      '  - tasks/002.md',
      '  - tasks/003.md',
      'supervisor:',
      '  max_retries: 2',
      'notes: |',
      '  free text',
      '  over lines',
      '',
    ].join('\n');
    writeFileSync(path.join(dir, 'kanban.yaml'), original);
    const result = await runCli([path.join(dir, 'kanban.yaml'), '--once']);
    expect(result.exitCode).toBe(0);
    const after = read(dir, 'kanban.yaml');
    expect(after).toBe(original.replace("current: 'tasks/001.md'", 'current: tasks/002.md'));
    const done = await runCli([path.join(dir, 'kanban.yaml')]);
    expect(done.exitCode).toBe(0);
    const final = read(dir, 'kanban.yaml');
    expect(final).toContain('# My board — keep this comment');
    expect(final).toContain('owner: ada            # unknown key, kept');
    expect(final).toContain('current: null   # trailing comment');
    expect(final).toContain('  - tasks/001.md   # first');
    expect(final).toContain('notes: |\n  free text\n  over lines\n');
    expect(final).toMatch(/^phase: complete$/m);
  });

  it("keeps a person's edit of current made during the step, logs a warning and continues from the file", async () => {
    const dir = boardWithTasks(3, {});
    // The worker plays the person: it moves current to task 3 while it runs.
    const editor = path.join(AGENTS, 'edits-board.mjs');
    writeFileSync(path.join(dir, 'roles/implementor.md'), role(['node', editor, 'tasks/003.md'], 'stdin: none\n'));
    const result = await runCli([path.join(dir, 'kanban.yaml'), '--once']);
    expect(result.exitCode).toBe(0);
    expect(read(dir, 'kanban.yaml')).toMatch(/^current: tasks\/003.md$/m);
    expect(read(dir, 'supervisor.log.md')).toMatch(/Warning[\s\S]*the person's version is kept/);
    expect(events(dir).some((e) => e.type === 'human_edit_kept')).toBe(true);
  });

  it(
    'a task added to kanban.yaml by hand during a step is kept, and the finished task does not run again: ' +
      'current moves on, with a warning saying so',
    async () => {
      const dir = boardWithTasks(3, {});
      const adder = path.join(AGENTS, 'adds-task.mjs');
      writeFileSync(path.join(dir, 'roles/implementor.md'), role(['node', adder, 'tasks/009.md'], 'stdin: none\n'));
      const result = await runCli([path.join(dir, 'kanban.yaml'), '--once']);
      expect(result.exitCode).toBe(0);
      const board = read(dir, 'kanban.yaml');
      expect(board).toMatch(/^current: tasks\/002.md$/m);
      expect(board).toMatch(/^ {2}- tasks\/009.md$/m);
      expect(read(dir, 'supervisor.log.md')).toContain(
        "kanban.yaml was changed during the step (tasks); the person's version is kept, and the rest of the " +
          'Manager\'s answer (next_task "tasks/002.md") is written',
      );
      expect(result.stdout).toContain("the person's version is kept");
    },
  );

  it('runs the role named in the task front-matter, else the role of the phase', async () => {
    const dir = boardWithTasks(
      2,
      {
        'tasks/001.md': '---\nrole: Reviewer\n---\nReview.\n',
        'roles/reviewer.md': fixtureRole('scripted.mjs', ['/dev/null']),
        'roles/architect.md': fixtureRole('scripted.mjs', ['/dev/null']),
      },
      'phase: design\n',
    );
    const result = await runCli([path.join(dir, 'kanban.yaml')]);
    expect(result.exitCode).toBe(0);
    expect(
      events(dir)
        .filter((e) => e.type === 'step_started')
        .map((e) => e.role),
    ).toEqual(['Reviewer', 'Architect']);
  });
});
