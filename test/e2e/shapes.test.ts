import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AGENTS, boardWithTasks, copyExampleBoard, events, fixtureRole, read, role, ROOT, runCli } from '../helpers.js';

const SEQUENTIAL = path.join(ROOT, 'dist', 'reference-agents', 'sequential-manager.js');

/** What a records-then.mjs agent received, one entry per run. */
function received(file: string): Array<{ stdin: string; input: Record<string, unknown>; trigger: string | null }> {
  return readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { stdin: string; input: string; trigger: string | null })
    .map((run) => ({ ...run, input: JSON.parse(run.input) as Record<string, unknown> }));
}

/** A role that records its inputs, then runs `program` (a reference agent or a fixture). */
function recording(record: string, program: string): string {
  return role(['node', path.join(AGENTS, 'records-then.mjs'), record, program], 'stdin: json\n');
}

describe('a periodic Reviewer', () => {
  it(
    'runs every 2 steps on a 6-task board, is retried on its own schema, ' +
      'and its replies reach the Manager untouched with trigger and done_task null',
    async () => {
      const review = {
        status: 'ok',
        message: 'style is fine',
        findings: [{ file: 'src/a.ts', note: 'name the constant' }],
      };
      const dir = boardWithTasks(
        6,
        {
          'roles/implementor.md': fixtureRole('scripted.mjs', ['/dev/null', 'valid']),
          'roles/reviewer.md': fixtureRole(
            'scripted.mjs',
            ['REVIEWS', 'valid', `json:${JSON.stringify(review)}`],
            'stdin: json\nschema: schemas/review.json\n',
          ).replace('REVIEWS', 'reviewer.jsonl'),
          'schemas/review.json': JSON.stringify({
            type: 'object',
            required: ['findings'],
            properties: { findings: { type: 'array' } },
          }),
        },
        'phase: execute\nsupervisor:\n  periodic:\n    - role: Reviewer\n      every: 2\n',
      );
      writeFileSync(path.join(dir, 'roles/manager.md'), recording(path.join(dir, 'manager.jsonl'), SEQUENTIAL));
      const result = await runCli(['kanban.yaml'], { cwd: dir });
      expect(result.stderr).toBe('');
      expect(result.exitCode).toBe(0);

      const steps = events(dir)
        .filter((e) => e.type === 'step_started')
        .map((e) => (e.trigger ? `${String(e.step)}:${String(e.trigger)}` : `${String(e.step)}:${String(e.task)}`));
      expect(steps).toEqual([
        '1:tasks/001.md',
        '2:tasks/002.md',
        '3:Reviewer',
        '4:tasks/003.md',
        '5:tasks/004.md',
        '6:Reviewer',
        '7:tasks/005.md',
        '8:tasks/006.md',
        '9:Reviewer',
      ]);
      // The first review lacked `findings` (its role's own schema): one retry with the same inputs.
      const reviews = readFileSync(path.join(dir, 'reviewer.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse((JSON.parse(line) as { stdin: string }).stdin) as Record<string, unknown>);
      expect(reviews).toHaveLength(4);
      expect(reviews[1]).toEqual(reviews[0]);
      const tasks = ['tasks/001.md', 'tasks/002.md', 'tasks/003.md', 'tasks/004.md', 'tasks/005.md', 'tasks/006.md'];
      expect(reviews.slice(1).map((r) => r.done_tasks)).toEqual([
        tasks.slice(0, 2),
        tasks.slice(2, 4),
        tasks.slice(4, 6),
      ]);
      expect(reviews[0]).toEqual({
        role: 'Reviewer',
        kanban_file: 'kanban.yaml',
        tasks,
        done_tasks: tasks.slice(0, 2),
      });
      expect(
        events(dir)
          .filter((e) => e.type === 'retry')
          .map((e) => e.role),
      ).toEqual(['Reviewer']);

      const triggered = received(path.join(dir, 'manager.jsonl')).filter((run) => run.trigger !== null);
      expect(triggered).toHaveLength(3);
      for (const run of triggered) {
        expect(run.trigger).toBe('Reviewer');
        expect(run.input).toMatchObject({
          role: 'Manager',
          kanban_file: 'kanban.yaml',
          done_task: null,
          trigger: 'Reviewer',
          result: review,
          tasks,
        });
        expect(JSON.parse(run.stdin)).toEqual(run.input);
      }
      // The sequential Manager kept current as it was after each review.
      expect(
        events(dir)
          .filter((e) => e.type === 'board_written' && e.trigger === 'Reviewer')
          .map((e) => e.current),
      ).toEqual(['tasks/003.md', 'tasks/005.md', null]);
      expect(read(dir, 'kanban.yaml')).toMatch(/^phase: complete$/m);
      expect(result.stdout).toMatch(/step 3 · Reviewer \(periodic\) · 2 task\(s\) done since its last run/);
    },
  );
});

describe('the example board examples/periodic-reviewer', () => {
  it('runs offline: four shell tasks, the Reviewer after the 2nd and 4th, each review in out/review.md', async () => {
    const dir = copyExampleBoard('periodic-reviewer');
    const result = await runCli(['kanban.yaml'], { cwd: dir });
    expect(result.stderr).toBe('');
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(/Done: the board has no next task \(6 step\(s\)/);
    expect(
      events(dir)
        .filter((e) => e.type === 'step_started')
        .map((e) => e.role),
    ).toEqual(['Implementor', 'Implementor', 'Reviewer', 'Implementor', 'Implementor', 'Reviewer']);
    expect(read(dir, 'out/report.txt')).toBe('There are 4 distinct words.\n');
    expect(read(dir, 'out/review.md')).toBe(
      '## Review of tasks/001-words.md, tasks/002-sort.md\n\n- nothing to fix\n\n' +
        '## Review of tasks/003-count.md, tasks/004-report.md\n\n- nothing to fix\n\n',
    );
  });
});

describe('exhausted retries handed to the Manager (on_exhausted: manager)', () => {
  it('gives the Manager {"status": "error", "message"} for the task; it moves on and the run finishes', async () => {
    const dir = boardWithTasks(
      2,
      {
        'roles/implementor.md': fixtureRole('scripted.mjs', ['WORKER', 'garbage', 'garbage', 'valid']).replace(
          'WORKER',
          'worker.jsonl',
        ),
      },
      'phase: execute\nsupervisor:\n  max_retries: 1\n  on_exhausted: manager\n',
    );
    writeFileSync(
      path.join(dir, 'roles/manager.md'),
      recording(path.join(dir, 'manager.jsonl'), path.join(AGENTS, 'moves-on.mjs')),
    );
    const result = await runCli(['kanban.yaml'], { cwd: dir });
    expect(result.exitCode).toBe(0);
    const [first, second] = received(path.join(dir, 'manager.jsonl')).map((run) => run.input);
    expect(first?.done_task).toBe('tasks/001.md');
    expect(first?.result).toEqual({
      status: 'error',
      message:
        'Implementor gave no valid reply for tasks/001.md in 2 attempts: ' +
        'printed no JSON reply object (tried the whole stdout, known agent wrappers, the last ```json block, ' +
        'the last JSON line and every balanced object)',
    });
    expect(second).toMatchObject({ done_task: 'tasks/002.md', result: { status: 'ok', message: 'done' } });
    expect(read(dir, 'kanban.yaml')).toMatch(/^current: null$/m);
    expect(read(dir, 'supervisor.log.md')).toMatch(
      new RegExp(
        String.raw`### \S+ Retries Exhausted[\s\S]*\*\*Attempt:\*\* 1\/1[\s\S]*\*\*Action:\*\* Handing the ` +
          String.raw`Manager \{"status": "error"\} for this task \(on_exhausted: manager\)`,
      ),
    );
    expect(result.stdout).toMatch(
      new RegExp(
        String.raw`✗ Implementor gave no valid reply in 2 attempts; ` +
          String.raw`the Manager gets \{"status": "error"\} for it \(on_exhausted: manager\)`,
      ),
    );
  });
});

describe("the Manager's history", () => {
  it(
    'lists the recent steps of this run and earlier ones, newest first, field by field, ' +
      'on stdin and in KANBAN_INPUT',
    async () => {
      const dir = boardWithTasks(2, {
        'roles/implementor.md': fixtureRole('scripted.mjs', [
          'WORKER',
          'garbage',
          'json:{"status":"ok","message":"wrote the parser"}',
          'json:{"status":"blocked","message":"the parser module is missing"}',
        ]).replace('WORKER', 'worker.jsonl'),
      });
      writeFileSync(
        path.join(dir, 'roles/manager.md'),
        recording(path.join(dir, 'manager.jsonl'), path.join(AGENTS, 'moves-on.mjs')),
      );
      expect((await runCli(['kanban.yaml', '--once'], { cwd: dir })).exitCode).toBe(0);
      expect((await runCli(['kanban.yaml'], { cwd: dir })).exitCode).toBe(0);
      const runs = [...new Set(events(dir).map((e) => e.run))];
      expect(runs).toHaveLength(2);
      const time = (run: string, step: number) =>
        events(dir).find((e) => e.type === 'step_started' && e.run === run && e.step === step)?.time;
      const managers = received(path.join(dir, 'manager.jsonl'));
      expect(managers).toHaveLength(2);
      const older = {
        run: runs[0],
        step: 1,
        time: time(runs[0] as string, 1),
        task: 'tasks/001.md',
        role: 'Implementor',
        status: 'ok',
        message: 'wrote the parser',
        attempts: 2,
        invalid: [
          'printed no JSON reply object (tried the whole stdout, known agent wrappers, the last ```json block, ' +
            'the last JSON line and every balanced object)',
        ],
        limit_waits: 0,
      };
      // The first Manager sees its own step, not yet answered.
      expect(managers[0]?.input.history).toEqual([older]);
      // The second, in the next run: its step first, then the first run's, now with the Manager's answer.
      expect(managers[1]?.input.history).toEqual([
        {
          run: runs[1],
          step: 1,
          time: time(runs[1] as string, 1),
          task: 'tasks/002.md',
          role: 'Implementor',
          status: 'blocked',
          message: 'the parser module is missing',
          attempts: 1,
          invalid: [],
          limit_waits: 0,
        },
        { ...older, manager: { status: 'ok', next_task: 'tasks/002.md' } },
      ]);
      for (const manager of managers) expect(JSON.parse(manager.stdin)).toEqual(manager.input);
    },
  );
});
