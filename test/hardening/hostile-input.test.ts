import { existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { events, fixtureRole, read, runCli, SEQUENTIAL_MANAGER, tempDir } from '../helpers.js';

const VALID_WORKER = fixtureRole('exits-before-reading.mjs', [], 'stdin: none\n');

/** A board of two tasks inside `<root>/board`, so that `<root>` is "outside the board folder". */
function boardInRoot(files: Record<string, string> = {}) {
  const root = tempDir();
  const dir = path.join(root, 'board');
  const tasks = ['tasks/001.md', 'tasks/002.md'];
  const all: Record<string, string> = {
    'kanban.yaml': `phase: execute\ncurrent: tasks/001.md\ntasks:\n${tasks.map((t) => `  - ${t}`).join('\n')}\n`,
    'roles/implementor.md': VALID_WORKER,
    'roles/manager.md': SEQUENTIAL_MANAGER,
    ...Object.fromEntries(tasks.map((t) => [t, '---\ntitle: a task\n---\nDo it.\n'])),
    ...files,
  };
  for (const [name, text] of Object.entries(all)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), text);
  }
  writeFileSync(path.join(root, 'outside.md'), '---\ntitle: not yours\n---\n');
  return { root, dir };
}

/** Run a board and check the outcome is one clear line, fast, with the board as it was. */
async function expectRefused(dir: string, code: number, message: RegExp, flags: string[] = []) {
  const before = read(dir, 'kanban.yaml');
  const started = Date.now();
  const result = await runCli(['kanban.yaml', ...flags], { cwd: dir });
  expect(result.exitCode).toBe(code);
  expect(result.stderr.trim()).toMatch(message);
  expect(result.stderr.trim().split('\n')).toHaveLength(1);
  expect(result.stderr).not.toMatch(/internal error|\n\s+at /);
  expect(Date.now() - started).toBeLessThan(15_000);
  expect(read(dir, 'kanban.yaml')).toBe(before);
  return result;
}

function aliasBomb(levels = 12): string {
  let text = 'a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n';
  for (let i = 1; i <= levels; i++)
    text += `a${i}: &a${i} [${Array.from({ length: 10 }, () => `*a${i - 1}`).join(', ')}]\n`;
  return text;
}

describe('hostile input', () => {
  it.each([
    [
      'kanban.yaml',
      (bomb: string) => ({ 'kanban.yaml': `phase: execute\ncurrent: tasks/001.md\ntasks: [tasks/001.md]\n${bomb}` }),
      /^kanban-supervisor: kanban\.yaml:1: cannot be read as YAML: Excessive alias count/,
    ],
    [
      'a task',
      (bomb: string) => ({ 'tasks/001.md': `---\n${bomb}---\nx\n` }),
      /^kanban-supervisor: tasks\/001\.md:\d+: cannot be read as YAML: Excessive alias count/,
    ],
    [
      'a role file',
      (bomb: string) => ({ 'roles/implementor.md': `---\ncommand: [node]\n${bomb}---\nx\n` }),
      /^kanban-supervisor: roles\/implementor\.md:\d+: cannot be read as YAML: Excessive alias count/,
    ],
  ])('refuses a YAML alias bomb in %s at once with exit 2', async (_, files, message) => {
    const { dir } = boardInRoot(files(aliasBomb()));
    await expectRefused(dir, 2, message);
  });

  it('refuses kanban.yaml nested 100,000 levels deep with exit 2', async () => {
    const { dir } = boardInRoot({
      'kanban.yaml': `current: null\ntasks: []\nx: ${'['.repeat(100_000)}${']'.repeat(100_000)}\n`,
    });
    await expectRefused(dir, 2, /^kanban-supervisor: kanban\.yaml:\d+: nests too deeply to read/);
  });

  it.each([
    [
      'current',
      'current: "tasks/001.md\\0"\ntasks: [tasks/001.md]\n',
      /current "tasks\/001\.md\\u0000" contains a NUL byte/,
    ],
    [
      'a task path',
      'current: tasks/001.md\ntasks: [tasks/001.md, "tasks/002.md\\0.sh"]\n',
      /tasks item 2 "tasks\/002\.md\\u0000\.sh" contains a NUL byte/,
    ],
  ])('refuses a NUL byte in %s of kanban.yaml with exit 2', async (_, board, message) => {
    const { dir } = boardInRoot({ 'kanban.yaml': board });
    await expectRefused(dir, 2, message);
  });

  it('refuses a task path in kanban.yaml that is a symlink leading outside the board folder', async () => {
    const { root, dir } = boardInRoot();
    symlinkSync(path.join(root, 'outside.md'), path.join(dir, 'tasks', 'escape.md'));
    writeFileSync(path.join(dir, 'kanban.yaml'), 'current: tasks/escape.md\ntasks: [tasks/escape.md]\n');
    await expectRefused(
      dir,
      2,
      new RegExp(
        String.raw`^kanban-supervisor: kanban\.yaml:\d+: (current|tasks item 1) ` +
          String.raw`"tasks\/escape\.md" is a symlink that leads outside the board folder`,
      ),
    );
  });

  it.each([
    ['a path with ..', '../outside.md', /\/tasks\/0 "\.\.\/outside\.md" leaves the board folder/],
    ['an absolute path', '<root>/outside.md', /\/tasks\/0 ".*outside\.md" is absolute/],
    [
      'a symlink leaving the board folder',
      'tasks/escape.md',
      /\/tasks\/0 "tasks\/escape\.md" is a symlink that leads outside the board folder/,
    ],
    ['a path with a NUL byte', 'tasks/002.md\u0000', /contains a NUL byte/],
  ])(
    'retries a Manager answer naming %s as invalid output and never writes it to the board or outside',
    async (_, task, issue) => {
      const root = tempDir();
      const next = task.replace('<root>', root);
      const answer = JSON.stringify({ status: 'ok', message: 'go there', next_task: next, tasks: [next] });
      const { dir } = boardInRoot({
        'roles/manager.md': fixtureRole('scripted.mjs', ['/dev/null', `json:${answer}`], 'stdin: none\n'),
      });
      symlinkSync(path.join(dir, '..', 'outside.md'), path.join(dir, 'tasks', 'escape.md'));
      const outsideBefore = readdirSync(path.dirname(dir)).sort();
      await expectRefused(
        dir,
        3,
        new RegExp(
          String.raw`^kanban-supervisor: Manager gave no valid reply .* in 2 attempt\(s\); ` +
            String.raw`the last one replied in the wrong format: `,
        ),
        ['--max-retries', '1'],
      );
      const finished = events(dir).filter((e) => e.type === 'attempt_finished' && e.role === 'Manager');
      expect(finished).toHaveLength(2);
      for (const attempt of finished) expect(attempt.issue).toMatch(issue);
      expect(readdirSync(path.dirname(dir)).sort()).toEqual(outsideBefore);
      expect(read(path.dirname(dir), 'outside.md')).toBe('---\ntitle: not yours\n---\n');
      expect(readdirSync(root)).toEqual([]);
    },
  );

  it('reads __proto__ keys in task front-matter and in a Manager answer as plain data', async () => {
    const raw =
      '{"status":"ok","message":"m","next_task":null,"tasks":["tasks/001.md","tasks/002.md"],' +
      '"__proto__":{"phase":"hacked","sub_phase":"hacked"}}';
    const { dir } = boardInRoot({
      'tasks/001.md': '---\n__proto__:\n  role: Tester\nconstructor:\n  prototype:\n    role: Tester\n---\nx\n',
      'roles/manager.md': fixtureRole('scripted.mjs', ['/dev/null', `json:${raw}`], 'stdin: none\n'),
    });
    const result = await runCli(['kanban.yaml'], { cwd: dir });
    expect(result.exitCode).toBe(0);
    // The task ran as the phase's role (there is no roles/tester.md), and nothing set the phase.
    expect(events(dir).find((e) => e.type === 'step_started')).toMatchObject({ role: 'Implementor' });
    expect(read(dir, 'kanban.yaml')).toBe(
      'phase: execute\ncurrent: null\ntasks:\n  - tasks/001.md\n  - tasks/002.md\n',
    );
  });
});

describe('front-matter that is code', () => {
  // Would write <folder>/pwned if anything evaluated it.
  const payload = (folder: string) =>
    `{ role: (require('fs').writeFileSync(${JSON.stringify(path.join(folder, 'pwned'))}, 'evaluated'), ` +
    `'Implementor'), command: ['node'] }`;

  it('is code a front-matter parser with a JavaScript engine would run (the payload works)', () => {
    const folder = tempDir();
    // What gray-matter's default `js` engine does with the text between the --- lines.
    new Function('require', `return (${payload(folder)});`)(createRequire(import.meta.url));
    expect(existsSync(path.join(folder, 'pwned'))).toBe(true);
  });

  it.each(['---js', '--- javascript', '---JS ', '\uFEFF---js', '---coffee', '---Javascript'])(
    'is refused, never run, when a task or role file opens with %j',
    async (opening) => {
      const folder = tempDir();
      const text = `${opening}\n${payload(folder)}\n---\nx\n`;
      for (const file of ['tasks/001.md', 'roles/implementor.md']) {
        const { dir } = boardInRoot({ [file]: text });
        const language = opening.replace(/^\uFEFF?---/, '').trim();
        await expectRefused(
          dir,
          2,
          new RegExp(
            `^kanban-supervisor: ${file.replace('/', '\\/').replace('.', '\\.')}:1: ` +
              `front-matter in "${language}" is not accepted; only YAML front-matter \\(---\\) is`,
          ),
        );
        expect(existsSync(path.join(folder, 'pwned'))).toBe(false);
      }
    },
  );

  it.each([
    ['never closed', '---\nrole: Implementor\ntitle: [unclosed\n'],
    ['a list, not a mapping', '---\n- role\n- Implementor\n---\nx\n'],
    ['a duplicate key', '---\nrole: Implementor\nrole: Architect\n---\nx\n'],
    ['a tab for indentation', '---\ntitle:\n\t- x\n---\nx\n'],
  ])('refuses task front-matter that is %s with exit 2, naming the file and line', async (_, text) => {
    const { dir } = boardInRoot({ 'tasks/001.md': text });
    await expectRefused(
      dir,
      2,
      /^kanban-supervisor: tasks\/001\.md:\d+: .*\. Fix the front-matter between the --- lines\.$/,
    );
  });
});
