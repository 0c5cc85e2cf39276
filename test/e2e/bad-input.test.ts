import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { boardWithTasks, fixtureRole, read, role, runCli } from '../helpers.js';

const worker = fixtureRole('scripted.mjs', ['/dev/null']);

/** Each case edits a valid two-task board, then expects exit 2 with one line matching `message`. */
const cases: Array<[string, (dir: string) => void, RegExp]> = [
  [
    'broken YAML',
    (d) => edit(d, 'kanban.yaml', () => 'phase: execute\ncurrent: [unclosed\ntasks: []\n'),
    /kanban\.yaml:\d+: .*Fix the YAML syntax/,
  ],
  [
    'a board that is a list',
    (d) => edit(d, 'kanban.yaml', () => '- a\n- b\n'),
    /kanban\.yaml:1: must be a YAML mapping/,
  ],
  [
    'current of the wrong type',
    (d) => edit(d, 'kanban.yaml', (t) => t.replace('current: tasks/001.md', 'current: 5')),
    /kanban\.yaml:2: current must be a string or null \(got 5\)\. Set it to a task path from tasks\./,
  ],
  [
    'no tasks',
    (d) => edit(d, 'kanban.yaml', () => 'current: tasks/001.md\n'),
    /kanban\.yaml:1: is missing the required field "tasks"\. Add `tasks:`/,
  ],
  [
    'tasks that are not a list',
    (d) => edit(d, 'kanban.yaml', () => 'current: null\ntasks: tasks/001.md\n'),
    /kanban\.yaml:2: tasks must be an array/,
  ],
  [
    'a task path that is not a string',
    (d) => edit(d, 'kanban.yaml', (t) => t.replace('  - tasks/002.md', '  - {path: x}')),
    /kanban\.yaml:5: tasks item 2 must be a string/,
  ],
  [
    'current not in tasks',
    (d) => edit(d, 'kanban.yaml', (t) => t.replace('current: tasks/001.md', 'current: tasks/009.md')),
    /current "tasks\/009\.md" is not in tasks/,
  ],
  [
    'a task path leaving the board',
    (d) => edit(d, 'kanban.yaml', (t) => t.replace(/tasks\/001\.md/g, '../001.md')),
    /"\.\.\/001\.md" leaves the board folder/,
  ],
  [
    'an absolute task path',
    (d) => edit(d, 'kanban.yaml', (t) => t.replace(/tasks\/001\.md/g, '/etc/passwd')),
    /"\/etc\/passwd" is absolute/,
  ],
  [
    'a negative max_retries',
    (d) => edit(d, 'kanban.yaml', (t) => `${t}supervisor:\n  max_retries: -1\n`),
    /supervisor\.max_retries must be >= 0/,
  ],
  [
    'a malformed timeout',
    (d) => edit(d, 'kanban.yaml', (t) => `${t}supervisor:\n  timeout: soon\n`),
    /supervisor\.timeout must be a duration like 90s/,
  ],
  [
    'a missing task file',
    (d) => edit(d, 'tasks/001.md', () => null),
    /kanban\.yaml:4: tasks item 1 "tasks\/001\.md": no such file\. Create it or remove it from tasks\./,
  ],
  [
    'broken task front-matter',
    (d) => edit(d, 'tasks/001.md', () => '---\nrole: [Implementor\n---\nx\n'),
    /tasks\/001\.md:\d+: .*Fix the front-matter/,
  ],
  [
    'a task role that is not a name',
    (d) => edit(d, 'tasks/001.md', () => '---\nrole: 42\n---\nx\n'),
    /tasks\/001\.md:2: front-matter role must be a role name/,
  ],
  [
    'a missing role file',
    (d) => edit(d, 'tasks/001.md', () => '---\nrole: Tester\n---\nx\n'),
    /tasks\/001\.md:2: roles\/tester\.md does not exist, but its front-matter asks for role Tester\. Create it/,
  ],
  [
    'a role without command',
    (d) => edit(d, 'roles/implementor.md', () => '---\nstdin: none\n---\nx\n'),
    /roles\/implementor\.md:2: front-matter is missing the required field "command"\. Set `command:`/,
  ],
  [
    'a role command that is a string',
    (d) => edit(d, 'roles/implementor.md', () => '---\ncommand: claude -p\n---\nx\n'),
    /roles\/implementor\.md:2: front-matter command must be an array/,
  ],
  [
    'a bad stdin mode',
    (d) => edit(d, 'roles/implementor.md', () => role(['true'], 'stdin: pipe\n')),
    /stdin must be one of prompt, json, none/,
  ],
  [
    'an unknown placeholder',
    (d) => edit(d, 'roles/implementor.md', () => role(['echo', '{{taskfile}}'])),
    /roles\/implementor\.md:2: unknown placeholder \{\{taskfile\}\}/,
  ],
  [
    'a command not on PATH',
    (d) => edit(d, 'roles/implementor.md', () => role(['no-such-agent-cli', '-p'])),
    new RegExp(
      String.raw`roles\/implementor\.md:2: the Implementor command "no-such-agent-cli" was not found on PATH\. ` +
        'Install it, or fix `command:`',
    ),
  ],
  [
    'a command that is not executable',
    (d) => edit(d, 'roles/implementor.md', () => role(['./tasks/001.md'])),
    /the Implementor command "\.\/tasks\/001\.md" is not executable/,
  ],
  [
    'js front-matter in a role file',
    (d) => edit(d, 'roles/implementor.md', () => '---js\n{ command: ["true"] }\n---\nx\n'),
    /roles\/implementor\.md:1: front-matter in "js" is not accepted/,
  ],
];

function edit(dir: string, name: string, change: (text: string) => string | null): void {
  const file = path.join(dir, name);
  const next = change(read(dir, name));
  if (next === null) rmSync(file);
  else writeFileSync(file, next);
}

describe('bad board, task and role input', () => {
  it.each(cases)(
    'refuses %s with exit 2, one line naming the file and the fix, and no change to the board',
    async (_, breakIt, message) => {
      const dir = boardWithTasks(2, { 'roles/implementor.md': worker });
      breakIt(dir);
      const before = read(dir, 'kanban.yaml');
      const result = await runCli([path.join(dir, 'kanban.yaml')]);
      expect(result.stderr).toMatch(message);
      expect(result.exitCode).toBe(2);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(result.stderr).toMatch(/^kanban-supervisor: /);
      expect(result.stderr).not.toMatch(/\n\s+at /);
      expect(read(dir, 'kanban.yaml')).toBe(before);
    },
  );

  it('refuses a missing kanban.yaml, a folder without one, and no board here, each with the fix', async () => {
    const dir = boardWithTasks(1, {});
    const missing = await runCli([path.join(dir, 'nope.yaml')]);
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toMatch(
      /nope\.yaml: no such file\. Check the path, or create a board with `npx kanban-supervisor init`\./,
    );
    mkdirSync(path.join(dir, 'folder.yaml'));
    const folder = await runCli([path.join(dir, 'folder.yaml')]);
    expect(folder.exitCode).toBe(2);
    expect(folder.stderr).toBe(
      `kanban-supervisor: ${path.join(dir, 'folder.yaml')} is a folder without a kanban.yaml. ` +
        `Pass the path of a board (its kanban.yaml or its folder), or create one there: ` +
        `npx kanban-supervisor init ${path.join(dir, 'folder.yaml')}`,
    );
    for (const command of [[], ['status'], ['validate'], ['report'], ['logs']]) {
      const none = await runCli(command, { cwd: path.join(dir, 'folder.yaml') });
      expect(none.exitCode).toBe(2);
      expect(none.stderr).toBe(
        // Inside a board's folder: the board above is named (issue 35).
        `kanban-supervisor: there is no kanban.yaml in this folder (${path.join(dir, 'folder.yaml')}). ` +
          'This folder is inside the board ../kanban.yaml: pass its path after the command ' +
          '(e.g. `npx kanban-supervisor ../kanban.yaml`), or run from its folder (cd ..).',
      );
    }
  });

  it.each([
    [['kanban.yaml', '--max-retires', '2'], /unknown option --max-retires for run\. Did you mean --max-retries\?/],
    [['kanban.yaml', '--max-retries', 'three'], /--max-retries must be a whole number >= 0 \(got "three"\)/],
    [['kanban.yaml', '--timeout', '5 minutes'], /--timeout must be a duration like 90s, 20m or 1h30m/],
    [['a.yaml', 'b.yaml'], /unexpected argument "b\.yaml"/],
  ])('refuses the command line %j with exit 2 and a one-line fix', async (args, message) => {
    const dir = boardWithTasks(1, { 'roles/implementor.md': worker });
    const result = await runCli(args, { cwd: dir });
    expect(result.stderr).toMatch(message);
    expect(result.exitCode).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
  });
});
