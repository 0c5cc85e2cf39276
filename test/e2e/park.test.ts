import { appendFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { fixtureRole, makeBoard, read, role, runCli } from '../helpers.js';
import { receiver } from './receiver.js';

const TASKS = ['tasks/001.md', 'tasks/002.md', 'tasks/003.md'] as const;

// Three tasks; the worker (needs-answer.mjs) is blocked on a task file without an `ANSWER:` line: t002's.
function threeTasks(): string {
  return makeBoard({
    'kanban.yaml': `phase: execute\ncurrent: ${TASKS[0]}\ntasks:\n${TASKS.map((t) => `  - ${t}`).join('\n')}\n`,
    'roles/implementor.md': fixtureRole('needs-answer.mjs'),
    'roles/manager.md': role(['node', '{{agents}}/sequential-manager.js', '--park'], 'stdin: json\n'),
    [TASKS[0]]: '---\ntitle: one\n---\nANSWER: 80\n',
    [TASKS[1]]: '---\ntitle: two\n---\nListen on the port the person names.\n',
    [TASKS[2]]: '---\ntitle: three\n---\nANSWER: 81\n',
  });
}

function board(dir: string): { current: unknown; parked?: Array<Record<string, unknown>> } {
  return parse(read(dir, 'kanban.yaml')) as { current: unknown; parked?: Array<Record<string, unknown>> };
}

const done = (dir: string, task: string) => /^status: done$/m.test(read(dir, task));

describe('sequential-manager.js --park', () => {
  it(
    'sets a blocked task aside, finishes the rest the same night, halts (exit 4) naming it and its question, ' +
      'and after the answer in the task file the next run finishes it',
    async () => {
      const dir = threeTasks();
      const got = await receiver();
      const first = await runCli(['kanban.yaml', '--quiet', '--notify', `json+${got.base}/hook`], { cwd: dir });
      expect(first.exitCode).toBe(4);
      expect(first.stderr).toMatch(/tasks\/002\.md \(blocked: which port should it listen on\?/);
      expect([done(dir, TASKS[0]), done(dir, TASKS[1]), done(dir, TASKS[2])]).toEqual([true, false, true]);
      expect(board(dir).current).toBe('tasks/002.md');
      expect(board(dir).parked).toEqual([
        {
          task: 'tasks/002.md',
          question: 'blocked: which port should it listen on? Add a line ANSWER: <port> to the task file',
          asked: true,
        },
      ]);
      // A person is told when it is set aside (the run going on), then at the halt.
      expect(got.json().map((notice) => [notice.event, notice.title])).toEqual([
        ['set_aside', expect.stringMatching(/: tasks\/002\.md set aside$/)],
        ['run_ended', expect.stringMatching(/exit 4\)$/)],
      ]);
      expect(got.json()[0]?.message).toMatch(
        /tasks\/002\.md \(blocked: which port.*The run goes on with the other tasks\./,
      );
      // The board view and status show it as set aside, with its question.
      const status = await runCli(['status', 'kanban.yaml'], { cwd: dir });
      expect(status.stdout).toMatch(
        /tasks\/002\.md .*\n\s+⏸ set aside by the Manager, a person was asked: blocked: which port/,
      );
      expect(status.stdout).toMatch(/^Set aside for a person \(1, kanban\.yaml parked:\)/m);
      const json = await runCli(['report', 'kanban.yaml', '--json'], { cwd: dir });
      const cards = (JSON.parse(json.stdout) as { board: Array<Record<string, unknown>> }).board;
      expect(cards.find((card) => card.task === 'tasks/002.md')).toMatchObject({
        column: 'blocked',
        parked: { task: 'tasks/002.md', asked: true },
      });

      appendFileSync(path.join(dir, TASKS[1]), 'ANSWER: 8080\n');
      const second = await runCli(['kanban.yaml', '--quiet'], { cwd: dir });
      expect(second.stderr).toBe('');
      expect(second.exitCode).toBe(0);
      expect(done(dir, TASKS[1])).toBe(true);
      expect(board(dir)).toMatchObject({ current: null, parked: [] });
    },
  );

  it('without --park, a blocked reply halts the run at once (exit 4) and later tasks wait', async () => {
    const dir = threeTasks();
    writeFileSync(
      path.join(dir, 'roles/manager.md'),
      role(['node', '{{agents}}/sequential-manager.js'], 'stdin: json\n'),
    );
    const result = await runCli(['kanban.yaml', '--quiet'], { cwd: dir });
    expect(result.exitCode).toBe(4);
    expect(done(dir, TASKS[2])).toBe(false);
    expect(board(dir).parked).toBeUndefined();
  });
});
