import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { boardWithTasks, CLI, events, fixtureRole, read, role } from '../helpers.js';
import { resident } from './resident.js';

const DONE_BOARD = 'phase: execute\ncurrent: null\ntasks:\n  - tasks/001.md\n';
const WITH_TASK_2 = 'phase: execute\ncurrent: tasks/002.md\ntasks:\n  - tasks/001.md\n  - tasks/002.md\n';

describe('the board going away', () => {
  it(
    'a resident supervisor whose kanban.yaml is moved away says so and keeps waiting; put back with a new task, ' +
      'it runs it',
    async () => {
      const dir = boardWithTasks(1, { 'roles/implementor.md': fixtureRole('scripted.mjs', ['/dev/null', 'valid']) });
      writeFileSync(path.join(dir, 'kanban.yaml'), DONE_BOARD);
      writeFileSync(path.join(dir, 'tasks/001.md'), '---\nstatus: done\n---\n');
      writeFileSync(path.join(dir, 'tasks/002.md'), '---\ntitle: task 2\n---\nNew work.\n');
      const run = resident(dir);
      await run.eventually((e) => e.type === 'waiting');
      renameSync(path.join(dir, 'kanban.yaml'), path.join(dir, 'kanban.yaml.swp'));
      const [gone] = await run.eventually((e) => e.type === 'edit_invalid');
      expect(gone).toMatchObject({
        files: ['kanban.yaml'],
        file: 'kanban.yaml',
        problem: 'no such file: it was moved or deleted. Put it back; the run carries on once it validates.',
        problems: 1,
      });
      expect(JSON.parse(read(dir, '.kanban-supervisor/waiting.json'))).toMatchObject({
        invalid: expect.stringContaining('kanban.yaml: no such file'),
      });

      writeFileSync(path.join(dir, 'kanban.yaml.swp'), WITH_TASK_2);
      renameSync(path.join(dir, 'kanban.yaml.swp'), path.join(dir, 'kanban.yaml'));
      await run.eventually((e) => e.type === 'waiting', 2);
      expect(
        events(dir)
          .filter((e) => e.type === 'step_started')
          .map((e) => e.task),
      ).toEqual(['tasks/002.md']);
      run.child.kill('SIGTERM');
      const result = await run.child;
      expect(result.exitCode).toBe(143);
      expect(String(result.stdout)).toMatch(
        new RegExp(
          String.raw` ! kanban\.yaml: no such file: it was moved or deleted\. Put it back; ` +
            String.raw`the run carries on once it validates\.; still waiting for a change$`,
          'm',
        ),
      );
    },
  );

  it(
    'a folder at waiting.json is told as a warning; the resident supervisor still waits, runs an edit, ' +
      'and ends with 143, leaving the folder',
    async () => {
      const dir = boardWithTasks(1, { 'roles/implementor.md': fixtureRole('scripted.mjs', ['/dev/null', 'valid']) });
      writeFileSync(path.join(dir, 'kanban.yaml'), DONE_BOARD);
      writeFileSync(path.join(dir, 'tasks/001.md'), '---\nstatus: done\n---\n');
      writeFileSync(path.join(dir, 'tasks/002.md'), '---\ntitle: task 2\n---\nNew work.\n');
      mkdirSync(path.join(dir, '.kanban-supervisor/waiting.json'), { recursive: true });
      const run = resident(dir);
      const [warning] = await run.eventually(
        (e) => e.type === 'warning' && e.file === '.kanban-supervisor/waiting.json',
      );
      expect(warning?.message).toBe(
        'is a folder, not a file: remove it, so that `status` can tell what this run waits for. Still waiting',
      );
      await run.eventually((e) => e.type === 'waiting');
      writeFileSync(path.join(dir, 'kanban.yaml'), WITH_TASK_2);
      await run.eventually((e) => e.type === 'waiting', 2);
      expect(
        events(dir)
          .filter((e) => e.type === 'step_started')
          .map((e) => e.task),
      ).toEqual(['tasks/002.md']);
      run.child.kill('SIGTERM');
      const result = await run.child;
      expect(result.exitCode).toBe(143);
      expect(String(result.stderr)).not.toMatch(/\n\s+at /);
      expect(statSync(path.join(dir, '.kanban-supervisor/waiting.json')).isDirectory()).toBe(true);
    },
  );

  it(
    'kanban.yaml moved away during a step: exit 2 with one line saying to put it back, no stack, ' +
      'no new kanban.yaml, a Halt entry',
    async () => {
      const moves =
        "require('fs').renameSync('kanban.yaml', 'moved.yaml'); console.log(JSON.stringify({ status: 'ok', " +
        "message: 'moved the board' }))";
      const dir = boardWithTasks(2, { 'roles/implementor.md': role(['node', '-e', moves], 'stdin: none\n') });
      const before = read(dir, 'kanban.yaml');
      const result = await execa('node', [CLI, 'kanban.yaml'], {
        cwd: dir,
        reject: false,
        env: { NO_COLOR: '1' },
        stdin: 'ignore',
        timeout: 60_000,
      });
      expect(result.exitCode).toBe(2);
      const stderr = String(result.stderr).trim();
      expect(stderr.split('\n')).toHaveLength(1);
      expect(stderr).toContain(
        `${path.join(dir, 'kanban.yaml')}: kanban.yaml is gone: it was moved or deleted during the step, ` +
          `so the Manager's answer (status ok, next_task "tasks/002.md") cannot be written; ` +
          `nothing was written in its place. Put it back (e.g. \`git checkout kanban.yaml\`, or move it back) ` +
          `and run again`,
      );
      expect(existsSync(path.join(dir, 'kanban.yaml'))).toBe(false);
      expect(readFileSync(path.join(dir, 'moved.yaml'), 'utf8')).toBe(before);
      expect(read(dir, 'supervisor.log.md')).toMatch(
        new RegExp(
          String.raw`Halt\n\n\*\*Agent:\*\* kanban-supervisor {2}\n\*\*Task:\*\* tasks\/001\.md {2}\n` +
            String.raw`\*\*Issue:\*\* kanban\.yaml is gone`,
        ),
      );
      expect(events(dir).at(-1)).toMatchObject({ type: 'halted', exitCode: 2, reason: 'bad_input' });
    },
  );
});
