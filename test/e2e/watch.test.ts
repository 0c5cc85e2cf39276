import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { boardWithTasks, CLI, events, fixtureRole, read } from '../helpers.js';
import { resident } from './resident.js';

const SHELLISH = fixtureRole('scripted.mjs', ['/dev/null', 'valid']);

describe('a resident supervisor (--watch)', () => {
  it(
    'stays up on a done board holding the lock, runs a task added later (not the one already done), ' +
      'and ends with 143 on SIGTERM',
    async () => {
      const dir = boardWithTasks(1, {
        'roles/implementor.md': fixtureRole('scripted.mjs', ['RECORD', 'valid']).replace('RECORD', 'worker.jsonl'),
      });
      writeFileSync(path.join(dir, 'kanban.yaml'), 'phase: execute\ncurrent: null\ntasks:\n  - tasks/001.md\n');
      writeFileSync(path.join(dir, 'tasks/001.md'), '---\ntitle: task 1\nstatus: done\n---\nDone long ago.\n');
      const run = resident(dir);
      await run.waiting();
      const waiting = JSON.parse(read(dir, '.kanban-supervisor/waiting.json')) as Record<string, unknown>;
      expect(waiting).toMatchObject({
        for: 'board_change',
        outcome: 'done',
        exitCode: 0,
        reason: 'the board has no next task',
        pid: run.child.pid,
        run: expect.any(String),
      });
      expect(Date.parse(String(waiting.since))).toBeGreaterThan(Date.now() - 30_000);
      expect(existsSync(path.join(dir, '.kanban-supervisor/run.lock'))).toBe(true);

      writeFileSync(path.join(dir, 'tasks/002.md'), '---\ntitle: task 2\n---\nNew work.\n');
      writeFileSync(
        path.join(dir, 'kanban.yaml'),
        'phase: execute\ncurrent: tasks/002.md\ntasks:\n  - tasks/001.md\n  - tasks/002.md\n',
      );
      await run.waiting(2);
      // Its own writes (the board, the Manager marking the task done) do not wake it: nothing more happens.
      await delay(1_500);
      expect(events(dir).filter((e) => e.type === 'woke')).toHaveLength(1);
      expect(
        events(dir)
          .filter((e) => e.type === 'step_started')
          .map((e) => e.task),
      ).toEqual(['tasks/002.md']);
      expect(read(dir, 'worker.jsonl').trim().split('\n')).toHaveLength(1);
      expect(read(dir, 'tasks/002.md')).toMatch(/^status: done$/m);

      run.child.kill('SIGTERM');
      const result = await run.child;
      expect(result.exitCode).toBe(143);
      expect(String(result.stdout)).toMatch(
        /⏸ waiting for an edit of kanban\.yaml, a task or a role file — done: the board has no next task/,
      );
      expect(String(result.stdout)).toMatch(
        /▶ kanban\.yaml(, tasks\/002\.md)? changed; carrying on from the board as it is/,
      );
      expect(existsSync(path.join(dir, '.kanban-supervisor/waiting.json'))).toBe(false);
      expect(existsSync(path.join(dir, '.kanban-supervisor/run.lock'))).toBe(false);
      expect(events(dir).at(-1)).toMatchObject({ type: 'interrupted', exitCode: 143 });
    },
  );

  it(
    'waits after the Manager escalates (exit 4) and resumes when the task file gets an answer; ' +
      'SIGINT ends it with 130',
    async () => {
      const dir = boardWithTasks(1, { 'roles/implementor.md': fixtureRole('needs-answer.mjs', [], 'stdin: none\n') });
      const run = resident(dir);
      const [halted] = await run.waiting();
      expect(halted).toMatchObject({
        outcome: 'halted_for_human',
        exitCode: 4,
        reason: expect.stringContaining('which port should it listen on?'),
      });
      expect(JSON.parse(read(dir, '.kanban-supervisor/waiting.json'))).toMatchObject({
        outcome: 'halted_for_human',
        exitCode: 4,
      });

      appendFileSync(path.join(dir, 'tasks/001.md'), '\nANSWER: 8080\n');
      const [, done] = await run.waiting(2);
      expect(done).toMatchObject({ outcome: 'done', exitCode: 0 });
      expect(events(dir).filter((e) => e.type === 'woke')).toEqual([
        expect.objectContaining({ by: 'change', files: ['tasks/001.md'] }),
      ]);
      const replies = events(dir)
        .filter((e) => e.type === 'attempt_finished' && e.role === 'Implementor')
        .map((e) => e.status);
      expect(replies).toEqual(['blocked', 'ok']);
      expect(read(dir, 'tasks/001.md')).toMatch(/^status: done$/m);
      expect(read(dir, 'kanban.yaml')).toMatch(/^current: null$/m);

      run.child.kill('SIGINT');
      expect((await run.child).exitCode).toBe(130);
    },
  );

  it(
    'reports an edit that does not validate yet (one line naming the file and the problem) and keeps waiting; ' +
      'a later edit that validates is run',
    async () => {
      const dir = boardWithTasks(1, { 'roles/implementor.md': SHELLISH });
      writeFileSync(path.join(dir, 'kanban.yaml'), 'phase: execute\ncurrent: null\ntasks:\n  - tasks/001.md\n');
      writeFileSync(path.join(dir, 'tasks/001.md'), '---\nstatus: done\n---\n');
      const run = resident(dir);
      await run.waiting();
      writeFileSync(
        path.join(dir, 'kanban.yaml'),
        'phase: execute\ncurrent: tasks/002.md\ntasks:\n  - tasks/001.md\n  - tasks/002.md\n',
      );
      const [invalid] = await run.eventually((e) => e.type === 'edit_invalid');
      expect(invalid).toMatchObject({
        files: ['kanban.yaml'],
        file: 'kanban.yaml',
        line: 5,
        problem: 'tasks item 2 "tasks/002.md": no such file. Create it or remove it from tasks.',
        problems: 1,
      });
      expect(JSON.parse(read(dir, '.kanban-supervisor/waiting.json'))).toMatchObject({
        invalid: 'kanban.yaml:5: tasks item 2 "tasks/002.md": no such file. Create it or remove it from tasks.',
      });
      expect(events(dir).some((e) => e.type === 'step_started')).toBe(false);

      writeFileSync(path.join(dir, 'tasks/002.md'), '---\ntitle: task 2\n---\nNow it exists.\n');
      await run.waiting(2);
      expect(events(dir).filter((e) => e.type === 'woke')).toEqual([
        expect.objectContaining({ files: ['tasks/002.md'] }),
      ]);
      expect(
        events(dir)
          .filter((e) => e.type === 'step_started')
          .map((e) => e.task),
      ).toEqual(['tasks/002.md']);
      run.child.kill('SIGTERM');
      const result = await run.child;
      const lines = String(result.stdout)
        .split('\n')
        .filter((line) => line.includes('still waiting'));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(
        new RegExp(
          String.raw` ! kanban\.yaml:5: tasks item 2 "tasks\/002\.md": no such file\. ` +
            String.raw`Create it or remove it from tasks\.; still waiting for a change$`,
        ),
      );
    },
  );

  it('is refused with --once, and a second supervisor is refused while it waits (exit 75)', async () => {
    const dir = boardWithTasks(1, { 'roles/implementor.md': SHELLISH });
    writeFileSync(path.join(dir, 'kanban.yaml'), 'phase: execute\ncurrent: null\ntasks:\n  - tasks/001.md\n');
    const both = await execa('node', [CLI, 'kanban.yaml', '--watch', '--once'], {
      cwd: dir,
      reject: false,
      stdin: 'ignore',
    });
    expect(both.exitCode).toBe(2);
    const run = resident(dir);
    await run.waiting();
    const second = await execa('node', [CLI, 'kanban.yaml', '--watch'], { cwd: dir, reject: false, stdin: 'ignore' });
    expect(second.exitCode).toBe(75);
    run.child.kill('SIGTERM');
    expect((await run.child).exitCode).toBe(143);
    expect(readFileSync(path.join(dir, 'kanban.yaml'), 'utf8')).toMatch(/^current: null$/m);
  });
});
