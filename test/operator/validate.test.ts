import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { copyExampleBoard, makeBoard, role, runCli, SEQUENTIAL_MANAGER } from '../helpers.js';
import { snapshot } from './snapshot.js';

describe('validate', () => {
  it('lists every mistake of the board, its task and role files at once, each as file:line, and exits 2', async () => {
    const dir = makeBoard({
      'kanban.yaml':
        'phase: execute\ncurrent: tasks/001.md\ntasks:\n  - tasks/001.md\n  - tasks/002.md\n  - tasks/003.md\n' +
        '  - tasks/004.md\n  - tasks/005.md\nsupervisor:\n  timeout: soon\n',
      'tasks/001.md': '---\ntitle: first\nrole: Tester\n---\nx\n',
      'tasks/002.md': '---\nrole: [Implementor\n---\nx\n',
      'tasks/004.md': '---\ntitle: four\n---\nx\n',
      'tasks/005.md': '---\ntitle: five\nrole: 42\n---\nx\n',
      'roles/implementor.md':
        '---\ncommand: [no-such-agent-xyz, -p]\nstdin: pipe\ntimeout: forever\n---\nDo {{task_file}}.\n' +
        'Then tell {{taskfile}} about it.\n',
    });
    const before = snapshot(dir);
    const result = await runCli(['validate', 'kanban.yaml'], { cwd: dir });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toBe('');
    const lines = result.stdout.split('\n');
    const expected = [
      /^kanban\.yaml:6: tasks item 3 "tasks\/003\.md": no such file\. Create it or remove it from tasks\.$/,
      /^kanban\.yaml:10: supervisor\.timeout must be a duration like 90s, 20m or 1h30m \(got "soon"\)\.$/,
      /^tasks\/001\.md:3: roles\/tester\.md does not exist, but its front-matter asks for role Tester\. Create it/,
      /^tasks\/002\.md:\d: .*Fix the front-matter between the --- lines\.$/,
      new RegExp(
        String.raw`^tasks\/005\.md:3: front-matter role must be a role name like Implementor \(got 42\)\. ` +
          String.raw`Fix or remove the role line\.$`,
      ),
      /^roles\/implementor\.md:2: the Implementor command "no-such-agent-xyz" was not found on PATH\. Install it/,
      /^roles\/implementor\.md:3: front-matter stdin must be one of prompt, json, none \(got "pipe"\)\./,
      /^roles\/implementor\.md:4: front-matter timeout must be a duration like 90s, 20m or 1h30m \(got "forever"\)\.$/,
      /^roles\/implementor\.md:7: unknown placeholder \{\{taskfile\}\}\. Use one of \{\{task_file\}\}/,
      /^roles\/manager\.md: no such role file, but every board needs a Manager to pick the next task\./,
      /^10 problem\(s\) found; nothing was run or changed\.$/,
    ];
    expect(lines).toHaveLength(expected.length);
    expected.forEach((pattern, i) => expect(lines[i]).toMatch(pattern));
    expect(snapshot(dir)).toEqual(before);
  });

  it(
    'keeps checking task and role files when kanban.yaml itself breaks its schema, ' +
      'naming paths relative to where it was run',
    async () => {
      const dir = makeBoard({
        'kanban.yaml': 'phase: design\ncurrent: 5\ntasks:\n  - tasks/001.md\nsupervisor:\n  max_retries: -1\n',
        'tasks/001.md': 'no front-matter at all\n',
        'roles/manager.md': SEQUENTIAL_MANAGER,
        'roles/architect.md': role(
          ['node', '{{agents}}/shell.js'],
          'stdin: none\noutput: sometimes\nschema: schemas/missing.json\n',
        ),
      });
      const result = await runCli(['validate', path.join(path.basename(dir), 'kanban.yaml')], {
        cwd: path.dirname(dir),
      });
      expect(result.exitCode).toBe(2);
      const name = path.basename(dir);
      expect(result.stdout.split('\n')).toEqual([
        `${name}/kanban.yaml:2: current must be a string or null (got 5). Set it to a task path from tasks.`,
        `${name}/kanban.yaml:6: supervisor.max_retries must be >= 0 (got -1). ` +
          `See the supervisor settings in docs/board.md.`,
        `${name}/roles/architect.md:4: front-matter output must be one of auto, whole, fenced, last-line, claude, ` +
          `codex, gemini (got "sometimes"). Use \`output: auto\` unless you need a named strategy.`,
        `${name}/roles/architect.md:5: schema file "schemas/missing.json" cannot be read. ` +
          `Create it or remove the schema line.`,
        '4 problem(s) found; nothing was run or changed.',
      ]);
    },
  );

  it('prints one OK line and exits 0 for the example board, having checked each task and role it needs', async () => {
    const dir = copyExampleBoard();
    const before = snapshot(dir);
    const result = await runCli(['validate', path.join(dir, 'kanban.yaml')], { cwd: dir });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe(
      'kanban.yaml: OK — 3 task file(s) and 3 role file(s) (Implementor, Architect, Manager) checked.',
    );
    expect(snapshot(dir)).toEqual(before);
  });

  it('names a list item indented one space off, at its line, with the indent to use', async () => {
    const dir = makeBoard({
      'kanban.yaml': 'phase: execute\ncurrent: tasks/001.md\ntasks:\n  - tasks/001.md\n - tasks/002.md\n',
      'roles/manager.md': SEQUENTIAL_MANAGER,
    });
    const result = await runCli(['validate', 'kanban.yaml'], { cwd: dir });
    expect(result.exitCode).toBe(2);
    expect(result.stdout.split('\n')[0]).toBe(
      'kanban.yaml:5: this list item is indented 1 space and the item above it 2 spaces, ' +
        'so YAML reads it as outside that list. Indent it like the items above: 2 spaces before the "-".',
    );
  });

  it(
    'names a task file whose front-matter is never closed, at the line where YAML gave up, ' +
      'with the closing line to add',
    async () => {
      const dir = makeBoard({
        'kanban.yaml': 'phase: execute\ncurrent: tasks/001.md\ntasks:\n  - tasks/001.md\n',
        'tasks/001.md':
          '---\nrole: Implementor\ntitle: Add the endpoint\n\nAdd GET /health. It returns 200.\nNote: keep it fast.\n',
        'roles/manager.md': SEQUENTIAL_MANAGER,
        'roles/implementor.md': role(['node', '-e', '0']),
      });
      const result = await runCli(['validate', 'kanban.yaml'], { cwd: dir });
      expect(result.exitCode).toBe(2);
      expect(result.stdout.split('\n')[0]).toBe(
        'tasks/001.md:5: the front-matter opened by --- on line 1 is never closed, ' +
          'so the text below it is read as YAML. Close it: add a line --- after its last key, before this line. ' +
          'Fix the front-matter between the --- lines.',
      );
    },
  );

  it('warns of a task file in tasks/ that tasks: does not list, naming it and the line to add', async () => {
    const dir = makeBoard({
      'kanban.yaml': 'phase: execute\ncurrent: tasks/001.md\ntasks:\n  - tasks/001.md\n',
      'tasks/001.md': '---\ntitle: one\n---\nx\n',
      'tasks/002.md': '---\ntitle: two, added by hand\n---\nx\n',
      // Finished work, not forgotten (a Backlog.md task set Done, left out by init --from backlog).
      'tasks/003.md': '---\nid: TASK-3\nstatus: Done\n---\nx\n',
      'roles/manager.md': SEQUENTIAL_MANAGER,
      'roles/implementor.md': role(['node', '-e', '0']),
    });
    const result = await runCli(['validate', 'kanban.yaml'], { cwd: dir });
    expect(result.exitCode).toBe(0);
    expect(result.stdout.split('\n')).toEqual([
      'kanban.yaml:4: tasks/002.md is a task file not listed in tasks:, ' +
        'so no run reaches it (the Manager picks only from tasks:). List it under tasks: ("  - tasks/002.md"), ' +
        'or move it out of tasks/ if it is no task. (warning)',
      'kanban.yaml: OK — 1 task file(s) and 2 role file(s) (Implementor, Manager) checked.',
    ]);
  });
});
