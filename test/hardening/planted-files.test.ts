import { execFileSync } from 'node:child_process';
import { linkSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { boardWithTasks, fixtureRole, runCli, tempDir } from '../helpers.js';

// Every command here must come back on its own: a FIFO that blocked an open() would hang it
// until this timeout, and execa would report it killed.
const QUICK = { timeout: 15_000 };

/** A board whose Implementor would write a marker file if it ever ran. */
function board(): { dir: string; marker: string } {
  const marker = path.join(tempDir(), 'ran');
  const dir = boardWithTasks(2, {
    'roles/implementor.md': fixtureRole('writes-marker.sh', [marker], 'stdin: none\n').replace('"node",', '"sh",'),
  });
  return { dir, marker };
}

function fifo(file: string): void {
  rmSync(file, { force: true });
  mkdirSync(path.dirname(file), { recursive: true });
  execFileSync('mkfifo', [file]);
}

describe('a task path that is really one of the board’s own files', () => {
  it.each([
    [
      'a symlink to kanban.yaml',
      (dir: string) => symlinkSync('../kanban.yaml', path.join(dir, 'tasks/002.md')),
      new RegExp(
        String.raw`^kanban\.yaml:5: tasks item 2 "tasks\/002\.md" leads to the board itself \(kanban\.yaml\); ` +
          String.raw`.* List a task file of its own there\.$`,
        'm',
      ),
    ],
    [
      'a hard link to a role file',
      (dir: string) => linkSync(path.join(dir, 'roles/manager.md'), path.join(dir, 'tasks/002.md')),
      /^kanban\.yaml:5: tasks item 2 "tasks\/002\.md" is a hard link to a role file \(roles\/manager\.md\); /m,
    ],
    [
      'a symlink to a state file',
      (dir: string) => (
        mkdirSync(path.join(dir, '.kanban-supervisor')),
        writeFileSync(path.join(dir, '.kanban-supervisor/agent.json'), '{}'),
        symlinkSync('../.kanban-supervisor/agent.json', path.join(dir, 'tasks/002.md'))
      ),
      /^kanban\.yaml:5: tasks item 2 "tasks\/002\.md" leads to the supervisor's state/m,
    ],
    [
      'a symlink to the Supervisor Log',
      (dir: string) => (
        writeFileSync(path.join(dir, 'supervisor.log.md'), ''),
        symlinkSync('../supervisor.log.md', path.join(dir, 'tasks/002.md'))
      ),
      /leads to the Supervisor Log \(supervisor\.log\.md\)/,
    ],
  ])('is refused by validate and before a run starts: %s', async (_, plant, message) => {
    const { dir, marker } = board();
    rmSync(path.join(dir, 'tasks/002.md'));
    plant(dir);
    const before = readFileSync(path.join(dir, 'kanban.yaml'), 'utf8');
    const validate = await runCli(['validate'], { cwd: dir, ...QUICK });
    expect(validate.exitCode).toBe(2);
    expect(validate.stdout + validate.stderr).toMatch(message);
    const run = await runCli([], { cwd: dir, ...QUICK });
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toMatch(/tasks item 2 "tasks\/002\.md" (leads to|is a hard link to)/);
    expect(() => readFileSync(marker)).toThrow();
    expect(readFileSync(path.join(dir, 'kanban.yaml'), 'utf8')).toBe(before);
  });

  it('an entry symlinked to another task file inside the board is still a task', async () => {
    const { dir } = board();
    rmSync(path.join(dir, 'tasks/002.md'));
    symlinkSync('001.md', path.join(dir, 'tasks/002.md'));
    const validate = await runCli(['validate'], { cwd: dir, ...QUICK });
    expect(validate.stdout + validate.stderr).not.toMatch(/tasks item 2/);
  });
});

describe('a FIFO planted where an agent-touched file is read', () => {
  it.each([
    ['validate', ['validate']],
    ['status', ['status']],
    ['run', []],
    ['--dry-run', ['--dry-run']],
    ['try --task', ['try', 'Implementor', '--task', 'tasks/001.md']],
  ])('in place of the current task never blocks %s', async (_, args) => {
    const { dir, marker } = board();
    fifo(path.join(dir, 'tasks/001.md'));
    const result = await runCli(args, { cwd: dir, ...QUICK });
    expect(result.timedOut).toBe(false);
    expect(result.stdout + result.stderr).toMatch(/tasks\/001\.md: is a FIFO, not a regular file; refusing to read it/);
    if (args[0] !== 'status') expect(result.exitCode).toBe(2);
    expect(() => readFileSync(marker)).toThrow();
  });

  it.each([
    ['a role file', 'roles/implementor.md', /roles\/implementor\.md: is a FIFO, not a regular file/],
    [
      "a role's schema file",
      'schemas/reply.json',
      /roles\/implementor\.md:2: schema file schemas\/reply\.json is a FIFO, not a regular file/,
    ],
  ])('in place of %s never blocks validate or a run', async (_, file, message) => {
    const { dir, marker } = board();
    const role = readFileSync(path.join(dir, 'roles/implementor.md'), 'utf8');
    writeFileSync(path.join(dir, 'roles/implementor.md'), role.replace('---\n', '---\nschema: schemas/reply.json\n'));
    fifo(path.join(dir, file));
    for (const args of [['validate'], []]) {
      const result = await runCli(args, { cwd: dir, ...QUICK });
      expect(result.timedOut).toBe(false);
      expect(result.exitCode).toBe(2);
      expect(result.stdout + result.stderr).toMatch(message);
    }
    expect(() => readFileSync(marker)).toThrow();
  });

  it('in place of kanban.yaml never blocks validate, status, a run or try', async () => {
    const { dir, marker } = board();
    rmSync(path.join(dir, 'kanban.yaml'));
    fifo(path.join(dir, 'kanban.yaml'));
    for (const args of [['validate'], ['status'], [], ['--dry-run'], ['try', 'Implementor', '--instruction', 'x']]) {
      const result = await runCli(args, { cwd: dir, ...QUICK });
      expect(result.timedOut).toBe(false);
      expect(result.exitCode).toBe(2);
      expect(result.stderr).toMatch(/kanban\.yaml: is a FIFO, not a regular file; refusing to read it/);
    }
    expect(() => readFileSync(marker)).toThrow();
  });

  it('in place of events.jsonl never blocks logs or status: the history is unreadable', async () => {
    const { dir } = board();
    fifo(path.join(dir, '.kanban-supervisor/events.jsonl'));
    for (const args of [['logs'], ['status'], ['report']]) {
      const result = await runCli(args, { cwd: dir, ...QUICK });
      expect(result.timedOut).toBe(false);
      expect(result.exitCode).toBe(2);
      expect(result.stderr.trim()).toMatch(
        new RegExp(
          String.raw`^kanban-supervisor: \.kanban-supervisor\/events\.jsonl: ` +
            String.raw`the event history cannot be read \(it is a FIFO, not a regular file\)\.`,
        ),
      );
    }
  });
});
