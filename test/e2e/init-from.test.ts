import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { execa } from 'execa';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseFrontMatter } from '../../src/board/front-matter.js';
import { read, ROOT, runCli, tempDir } from '../helpers.js';

// Backlog.md's own CLI, pinned in test/backlog/ and installed there on first use (not a devDependency:
// npm ci refuses a lock that lacks the per-platform binaries the registry does not serve). The projects
// here are made with it as users make them, and the runs find it on PATH as a user's would.
const BACKLOG_PREFIX = path.join(ROOT, 'test', 'backlog');
const BACKLOG_BIN = path.join(BACKLOG_PREFIX, 'node_modules', '.bin');
const BACKLOG = path.join(BACKLOG_BIN, 'backlog');
beforeAll(() => {
  if (!existsSync(BACKLOG))
    // npm keeps its compile cache in TMPDIR, which is this test run's (and must be left empty).
    execFileSync('npm', ['install', '--prefix', BACKLOG_PREFIX, '--no-audit', '--no-fund'], {
      stdio: 'inherit',
      env: { ...process.env, NODE_DISABLE_COMPILE_CACHE: '1' },
    });
  process.env.PATH = `${BACKLOG_BIN}${path.delimiter}${process.env.PATH ?? ''}`;
}, 180_000);

function backlog(dir: string, ...args: string[]) {
  return execa(BACKLOG, args, { cwd: dir, stdin: 'ignore', env: { NO_COLOR: '1' } });
}

/** A Backlog.md project made by Backlog.md: three tasks to do (one waits for another) and one Done. */
async function backlogProject(): Promise<string> {
  const dir = tempDir();
  await backlog(dir, 'init', 'Greeting', '--defaults', '--no-git', '--agent-instructions', 'none');
  const create = (title: string, script: string, ...more: string[]) =>
    backlog(dir, 'task', 'create', title, '-d', `Run this:\n\n\`\`\`sh\n${script}\n\`\`\``, '--plain', ...more);
  await create('Write the greeting', 'echo hello > greeting.txt', '--ordinal', '3000');
  await create('Check the greeting', 'grep hello greeting.txt && echo checked', '--dep', 'TASK-1', '--ordinal', '1000');
  await create('Already done', 'exit 1', '-s', 'Done');
  await create('Start the log', 'echo started > order.txt', '--ordinal', '2000', '--priority', 'high', '-l', 'docs');
  return dir;
}

const TASK = (dir: string, n: number) => {
  const name = readdirSync(path.join(dir, 'backlog', 'tasks')).find((file) => file.startsWith(`task-${n} - `));
  return `backlog/tasks/${name as string}`;
};

function frontMatter(dir: string, file: string): Record<string, unknown> {
  const parsed = parseFrontMatter(read(dir, file));
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.data;
}

/** Every file under `dir` with its size and time: what "nothing written" compares. */
function snapshot(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((name) => {
      const stats = statSync(path.join(dir, name));
      return `${name} ${stats.size} ${stats.mtimeMs}`;
    })
    .sort();
}

describe('init --from: the boards people keep', () => {
  it('a Backlog.md project made by its own CLI runs to the end, each task set Done by Backlog.md', async () => {
    const dir = await backlogProject();
    const before = Object.fromEntries([1, 2, 3, 4].map((n) => [n, read(dir, TASK(dir, n))]));
    const init = await runCli(['init', '--from', 'backlog', '--agent', 'shell'], { cwd: dir });
    expect(init.stderr).toBe('');
    expect(init.exitCode).toBe(0);
    expect(init.stdout).toContain('Listed 3 Backlog.md task(s) of backlog/tasks/ in kanban.yaml');
    // Listed as they are, in dependency order then ordinal; the Done one left out; no task copied.
    const board = read(dir, 'kanban.yaml');
    expect(board).toContain(`tasks:\n  - "${TASK(dir, 4)}"\n  - "${TASK(dir, 1)}"\n  - "${TASK(dir, 2)}"\nsupervisor:`);
    expect(board).toContain(`current: "${TASK(dir, 4)}"`);
    expect(readdirSync(dir).sort()).toEqual(['.gitignore', 'backlog', 'kanban.yaml', 'roles']);
    for (const n of [1, 2, 3, 4]) expect(read(dir, TASK(dir, n))).toBe(before[n]);

    const validate = await runCli(['validate'], { cwd: dir });
    expect(validate.stdout).toBe('kanban.yaml: OK — 3 task file(s) and 2 role file(s) (Implementor, Manager) checked.');
    expect(validate.exitCode).toBe(0);

    const run = await runCli([], { cwd: dir, timeout: 90_000 });
    expect(run.stderr).toBe('');
    expect(run.exitCode).toBe(0);
    expect(read(dir, 'kanban.yaml')).toMatch(/^current: null$/m);
    expect(read(dir, 'order.txt')).toBe('started\n');
    expect(read(dir, 'greeting.txt')).toBe('hello\n');
    // Backlog.md itself wrote the status (and its updated_date); the rest of each file is as it was, work log below.
    for (const n of [1, 2, 4]) {
      const { status, updated_date, ...rest } = frontMatter(dir, TASK(dir, n));
      expect(status).toBe('Done');
      expect(updated_date).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}$/);
      const parsed = parseFrontMatter(before[n] as string);
      const { status: was, ...then } = parsed.ok ? parsed.data : {};
      expect(was).toBe('To Do');
      expect(rest).toEqual(then);
      expect(read(dir, TASK(dir, n))).toMatch(/<!-- SECTION:DESCRIPTION:END -->\n\n## Work log\n\n### .* Implementor/);
    }
    expect(read(dir, TASK(dir, 3))).toBe(before[3]);
    expect(read(dir, TASK(dir, 2))).toMatch(/^hello\nchecked\n/m);
    const list = await backlog(dir, 'task', 'list', '--plain');
    expect(list.stdout).toMatch(/^Done:\n( {2}(\[HIGH\] )?TASK-\d - .*\n?){4}$/);
    expect(list.stdout).not.toContain('To Do:');
  }, 180_000);

  it('a missing backlog CLI stops the run before any agent; a status Backlog.md refuses halts it, the task not done', async () => {
    const dir = await backlogProject();
    expect((await runCli(['init', '--from', 'backlog'], { cwd: dir })).exitCode).toBe(0);
    // node and sh, but no backlog on PATH.
    const bin = tempDir();
    symlinkSync(process.execPath, path.join(bin, 'node'));
    const before = read(dir, TASK(dir, 4));
    const bare = await runCli([], { cwd: dir, env: { PATH: `${bin}:/usr/bin:/bin` } });
    expect(bare.exitCode).toBe(2);
    expect(bare.stderr).toContain(
      "roles/manager.md:6: the Manager sets each Backlog.md task done with Backlog.md's CLI (--backlog-done), but " +
        '"backlog" was not found on PATH. Install it (npm install -g backlog.md), or put its folder on PATH.',
    );
    expect(read(dir, TASK(dir, 4))).toBe(before);
    // Backlog.md's own CLI refuses a status its config does not have: the Manager halts for a person.
    writeFileSync(
      path.join(dir, 'roles/manager.md'),
      read(dir, 'roles/manager.md').replace('--backlog-done, "Done"', '--backlog-done, "Shipped"'),
    );
    const run = await runCli([], { cwd: dir });
    expect(run.exitCode).toBe(4);
    expect(run.stderr).toContain(
      `${TASK(dir, 4)} replied ok, but backlog task edit TASK-4 -s Shipped failed (exit 1): Invalid status: ` +
        'Shipped. Valid statuses are: To Do, In Progress, Done. Set it Shipped yourself',
    );
    expect(frontMatter(dir, TASK(dir, 4)).status).toBe('To Do');
    expect(read(dir, TASK(dir, 4)).startsWith(before)).toBe(true);
    expect(read(dir, 'kanban.yaml')).toContain(`current: "${TASK(dir, 4)}"`);
  }, 120_000);

  it('the Manager is told the done status: Backlog.md config’s last status, in its argv or its prompt', async () => {
    const dir = tempDir();
    mkdirSync(path.join(dir, 'backlog', 'tasks'), { recursive: true });
    writeFileSync(path.join(dir, 'backlog', 'config.yml'), 'statuses: ["Idea", "Doing", "Shipped"]\n');
    writeFileSync(
      path.join(dir, 'backlog', 'tasks', 'task-1 - One.md'),
      '---\nid: TASK-1\ntitle: One\nstatus: Idea\ndependencies: []\n---\n\nDo it.\n',
    );
    writeFileSync(
      path.join(dir, 'backlog', 'tasks', 'task-2 - Two.md'),
      '---\nid: TASK-2\ntitle: Two\nstatus: Shipped\ndependencies: []\n---\n\nDone.\n',
    );
    expect((await runCli(['init', '--from', 'backlog'], { cwd: dir })).exitCode).toBe(0);
    expect(read(dir, 'kanban.yaml')).toContain('tasks:\n  - "backlog/tasks/task-1 - One.md"\nsupervisor:');
    expect(read(dir, 'roles/manager.md')).toContain(
      'command: [node, "{{agents}}/sequential-manager.js", --backlog-done, "Shipped"]\n',
    );
    const claude = await runCli(['init', '--from', 'backlog', '--agent', 'claude', '--force'], { cwd: dir });
    expect(claude.exitCode).toBe(0);
    const manager = read(dir, 'roles/manager.md');
    // The shipped sequential Manager in front of the model: it sets the task done itself on an ok reply,
    // and the model's prompt says how, for the replies it is asked about.
    expect(manager).toMatch(
      /^command: \[node, "\{\{agents\}\}\/sequential-manager\.js", --backlog-done, "Shipped", --, claude, /m,
    );
    expect(manager).toContain(
      "mark {{done_task}} done\n  with Backlog.md's CLI (`backlog task edit <its id> -s Shipped`), not by editing it.\n",
    );
    expect(manager).not.toContain('status: done');
    expect(manager).toContain(
      "To mark a task done, run Backlog.md's CLI, `backlog task edit <its id> -s Shipped`, instead of editing the file",
    );
    expect(read(dir, 'roles/implementor.md')).toBe(
      readFileSync(path.join(ROOT, 'presets', 'claude', 'implementor.md'), 'utf8'),
    );
  });

  it('a task-master tasks.json runs to the end: the active tag’s pending tasks, written once, in dependency order', async () => {
    const project = tempDir();
    mkdirSync(path.join(project, '.taskmaster', 'tasks'), { recursive: true });
    const task = (id: number, status: string, dependencies: number[], script: string) => ({
      id,
      title: `Step ${id}`,
      description: `Append ${id} to the log.`,
      status,
      dependencies,
      priority: 'medium',
      details: `Run this:\n\n\`\`\`sh\n${script}\n\`\`\``,
      testStrategy: 'The log has the steps in order.',
      subtasks: [],
    });
    const json = `${JSON.stringify(
      {
        master: { tasks: [task(1, 'pending', [], 'exit 1')], metadata: { created: '2026-11-29T00:00:00.000Z' } },
        feature: {
          tasks: [
            task(1, 'done', [], 'exit 1'),
            task(2, 'pending', [3], 'echo 2 >> log.txt'),
            task(3, 'pending', [1], 'echo 3 >> log.txt'),
            task(4, 'deferred', [], 'exit 1'),
            task(5, 'in-progress', [2], 'echo 5 >> log.txt && test "$(cat log.txt)" = "$(printf "3\\n2\\n5")"'),
          ],
          metadata: { created: '2026-11-29T00:00:00.000Z', description: 'the feature' },
        },
      },
      null,
      2,
    )}\n`;
    const tasksJson = path.join(project, '.taskmaster', 'tasks', 'tasks.json');
    writeFileSync(tasksJson, json);
    writeFileSync(path.join(project, '.taskmaster', 'state.json'), '{"currentTag": "feature"}\n');
    const dir = path.join(tempDir(), 'board');
    const init = await runCli(['init', dir, '--from', tasksJson, '--agent', 'shell']);
    expect(init.stderr).toBe('');
    expect(init.exitCode).toBe(0);
    expect(init.stdout).toContain("Wrote 3 task(s) of task-master's tag feature as tasks/*.md, in dependency order");
    expect(read(dir, 'kanban.yaml')).toContain(
      'tasks:\n  - "tasks/003-step-3.md"\n  - "tasks/002-step-2.md"\n  - "tasks/005-step-5.md"\n',
    );
    expect(read(dir, 'tasks/005-step-5.md')).toContain('## Test strategy\n\nThe log has the steps in order.\n');
    const run = await runCli([dir], { timeout: 90_000 });
    expect(run.stderr).toBe('');
    expect(run.exitCode).toBe(0);
    expect(read(dir, 'log.txt')).toBe('3\n2\n5\n');
    for (const file of ['tasks/003-step-3.md', 'tasks/002-step-2.md', 'tasks/005-step-5.md'])
      expect(frontMatter(dir, file).status).toBe('done');
    expect(readFileSync(tasksJson, 'utf8')).toBe(json);
  }, 120_000);

  it('bad inputs are one line naming the file and the fix, exit 2, with nothing written', async () => {
    const cycle = await backlogProject();
    // By hand: Backlog.md's CLI refuses a cycle, a person's edit does not.
    const one = path.join(cycle, TASK(cycle, 1));
    writeFileSync(one, readFileSync(one, 'utf8').replace('dependencies: []', 'dependencies:\n  - TASK-2'));
    const empty = tempDir();
    const project = tempDir();
    mkdirSync(path.join(project, '.taskmaster', 'tasks', 'tasks.json'), { recursive: true });
    const tagged = tempDir();
    mkdirSync(path.join(tagged, '.taskmaster', 'tasks'), { recursive: true });
    writeFileSync(path.join(tagged, '.taskmaster', 'tasks', 'tasks.json'), '{"master": {"tasks": []}}');
    writeFileSync(path.join(tagged, '.taskmaster', 'state.json'), '{"currentTag": "gone"}');
    const broken = tempDir();
    writeFileSync(path.join(broken, 'tasks.json'), '{"tasks": [');
    const cases: Array<{ cwd: string; args: string[]; says: RegExp }> = [
      {
        cwd: empty,
        args: ['init', '--from', 'backlog'],
        says: /^backlog\/tasks: no such folder, so this folder is no Backlog\.md project\. Run init --from backlog in the project folder .*backlog init\.$/,
      },
      {
        cwd: cycle,
        args: ['init', '--from', 'backlog'],
        says: /^backlog\/tasks\/task-1 - Write-the-greeting\.md: the dependencies go round in a circle \(TASK-1 → TASK-2 → TASK-1\).*--clear-deps\), then run init again\.$/,
      },
      {
        cwd: project,
        args: ['init', 'board', '--from', '.taskmaster/tasks/tasks.json'],
        says: /^\.taskmaster\/tasks\/tasks\.json: is a folder, not a file\. Replace it with a regular file\.$/,
      },
      {
        cwd: broken,
        args: ['init', '--from', 'tasks.json'],
        says: /^tasks\.json: not valid JSON \(.*\)\. Fix it by hand, or restore it from git\.$/,
      },
      {
        cwd: tagged,
        args: ['init', 'board', '--from', '.taskmaster/tasks/tasks.json'],
        says: /^\.taskmaster\/state\.json: the tag "gone" is not in \.taskmaster\/tasks\/tasks\.json \(its tags: master\)\. Switch to one: task-master use-tag master\.$/,
      },
      {
        cwd: empty,
        args: ['init', '--from', 'trello'],
        says: /^--from must be backlog .* \(got "trello"\)\.$/,
      },
    ];
    for (const { cwd, args, says } of cases) {
      const before = snapshot(cwd);
      const result = await runCli(args, { cwd });
      expect(result.exitCode, args.join(' ')).toBe(2);
      expect(result.stdout).toBe('');
      const line = result.stderr.replace(/^kanban-supervisor: /, '').replace(/\n$/, '');
      expect(line).not.toContain('\n');
      expect(line).toMatch(says);
      expect(snapshot(cwd)).toEqual(before);
    }
  }, 120_000);
});
