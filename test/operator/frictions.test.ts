import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { boardWithTasks, runCli } from '../helpers.js';
import { snapshot } from './snapshot.js';

// Issue 35's frictions met through the built CLI, each titled with the mistake a person met on 4617305.
describe('frictions a newcomer met', () => {
  it('try … --task with a task file that is not there names --task and a task to give, not current', async () => {
    const dir = boardWithTasks(2, {});
    const before = snapshot(dir);
    const result = await runCli(['try', 'Implementor', '--task', 'tasks/009.md'], { cwd: dir });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toBe(
      'kanban-supervisor: --task tasks/009.md: no such file in the board folder. ' +
        'Give one of the tasks of kanban.yaml, e.g. --task tasks/001.md.',
    );
    expect(result.stderr).not.toContain('current');
    expect(snapshot(dir)).toEqual(before);
  });

  it('init --help says what --force does without "unless --force is given; then it writes nothing at all"', async () => {
    const { stdout, exitCode } = await runCli(['init', '--help']);
    expect(exitCode).toBe(0);
    const text = stdout.replace(/\s+/g, ' ');
    expect(text).not.toContain('unless --force is given; then it writes nothing at all');
    expect(text).toContain(
      'Never overwrites an existing board file: if one is there, it writes nothing at all, unless --force is ' +
        'given (then it overwrites them).',
    );
  });

  it('run inside tasks/, the command points at ../kanban.yaml', async () => {
    const dir = boardWithTasks(1, {});
    const result = await runCli(['status'], { cwd: path.join(dir, 'tasks') });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toMatch(
      /This folder is inside the board \.\.\/kanban\.yaml: pass its path after the command/,
    );
  });
});
