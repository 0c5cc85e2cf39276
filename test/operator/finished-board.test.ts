import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { boardWithTasks, read, role, runCli } from '../helpers.js';

const BOTH =
  'To run more, change both in kanban.yaml: set `current:` to the task to run (one of tasks), and `phase: ' +
  'complete` to another phase (e.g. `phase: execute`).';

describe('a board the sequential Manager finished', () => {
  it(
    'says at once that current and phase must both change to run a task added to it, ' +
      'and runs it after that one edit',
    async () => {
      const worker = role(['node', '-e', 'console.log(JSON.stringify({ status: "ok", message: "did it" }))']);
      const dir = boardWithTasks(1, { 'roles/implementor.md': worker });
      expect((await runCli(['kanban.yaml'], { cwd: dir })).exitCode).toBe(0);
      expect(read(dir, 'kanban.yaml')).toMatch(/^phase: complete\ncurrent: null\n/);

      // A person adds a task to the finished board.
      writeFileSync(path.join(dir, 'tasks/002.md'), '---\ntitle: one more\n---\nx\n');
      writeFileSync(path.join(dir, 'kanban.yaml'), read(dir, 'kanban.yaml').replace(/$/, '  - tasks/002.md\n'));
      const found = await runCli(['kanban.yaml'], { cwd: dir });
      expect(found.exitCode).toBe(0);
      expect(found.stdout.trim()).toMatch(
        new RegExp(
          String.raw`^Done: the board has no next task and phase is complete \(0 step\(s\), [^)]*\)\. ` +
            String.raw`To run more, change both in kanban\.yaml: `,
        ),
      );
      expect(found.stdout.trim().endsWith(BOTH)).toBe(true);
      expect((await runCli(['validate'], { cwd: dir })).stdout.trim()).toMatch(
        /checked\. current is null and phase is complete, so a run stops at once\. To run more, change both/,
      );
      expect((await runCli(['status'], { cwd: dir })).stdout.split('\n')[0]).toBe(
        `kanban.yaml · phase complete · current (none: nothing left to run. ${BOTH})`,
      );
      expect((await runCli(['kanban.yaml', '--dry-run'], { cwd: dir })).stdout).toContain(
        'the board has no next task (current: null, phase: complete). To run more, change both',
      );

      // The edit it names, once: the next run runs the task.
      writeFileSync(
        path.join(dir, 'kanban.yaml'),
        read(dir, 'kanban.yaml')
          .replace('phase: complete', 'phase: execute')
          .replace('current: null', 'current: tasks/002.md'),
      );
      const again = await runCli(['kanban.yaml'], { cwd: dir });
      expect(again.exitCode).toBe(0);
      expect(again.stdout).toMatch(/^Done: the board has no next task \(1 step\(s\)/m);
      expect(read(dir, 'tasks/002.md')).toMatch(/^status: done$/m);
    },
  );

  it('with a task left current and phase complete, says to change the phase (and how to finish instead)', async () => {
    const dir = boardWithTasks(1, {}, 'phase: complete\n');
    const found = await runCli(['kanban.yaml'], { cwd: dir });
    expect(found.stdout.trim()).toMatch(
      new RegExp(
        String.raw`^Done: phase is complete, so tasks\/001\.md \(current\) is not run \(0 step\(s\), [^)]*\)\. ` +
          'To run tasks\\/001\\.md, set `phase:` in kanban\\.yaml to another value \\(e\\.g\\. `phase: ' +
          'execute`\\); if the work is done, set `current: null`\\.$',
      ),
    );
  });
});
