import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execa, type ResultPromise } from 'execa';
import type { EventFields, EventOf, EventType } from '../src/event-types.js';

/** The repository root. */
export const ROOT = path.resolve(import.meta.dirname, '..');
/** The built CLI: tests run what users run. */
export const CLI = path.join(ROOT, 'dist', 'cli.js');
/** Tiny real agent programs used by the tests. */
export const AGENTS = path.join(ROOT, 'test', 'fixtures', 'agents');

const made: string[] = [];

/** Remove every folder tempDir made (after each test: test/state-per-test.ts). */
export function removeTempDirs(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** A fresh temp folder, removed after the test. */
export function tempDir(prefix = 'ks-'): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/** Write files (relative path → content) into a new temp board folder and return it. */
export function makeBoard(files: Record<string, string>): string {
  const dir = tempDir();
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), content);
  }
  return dir;
}

/**
 * A copy of the repository's example board (kanban.yaml, tasks/, roles/), or of the example in
 * `examples/<name>/`, as committed, in a temp folder. Not the working tree's: the README runs
 * the examples in place, which leaves them finished (and their output beside them), and
 * `npm test` may come right after.
 */
export function copyExampleBoard(name?: string): string {
  const dir = tempDir();
  const what = name === undefined ? ['HEAD', 'kanban.yaml', 'tasks', 'roles'] : [`HEAD:examples/${name}`];
  const tar = execFileSync('git', ['-C', ROOT, 'archive', '--format=tar', ...what], { maxBuffer: 16 * 1024 * 1024 });
  execFileSync('tar', ['-x', '-C', dir], { input: tar });
  return dir;
}

/** A role file whose agent is `command` (argv), with optional extra front-matter lines. */
export function role(command: string[], extra = '', body = 'Do {{task_file}}.\n'): string {
  return `---\ncommand: ${JSON.stringify(command)}\n${extra}---\n${body}`;
}

/** A role file running a fixture agent from test/fixtures/agents with node. */
export function fixtureRole(agent: string, args: string[] = [], extra = 'stdin: json\n'): string {
  return role(['node', path.join(AGENTS, agent), ...args], extra);
}

/** The shipped sequential Manager as a role file. */
export const SEQUENTIAL_MANAGER = role(['node', '{{agents}}/sequential-manager.js'], 'stdin: json\n');

/** A board with `n` tasks (tasks/001.md …), the first current, plus extra files. */
export function boardWithTasks(n: number, files: Record<string, string>, header = 'phase: execute\n'): string {
  const tasks = Array.from({ length: n }, (_, i) => `tasks/${String(i + 1).padStart(3, '0')}.md`);
  const board: Record<string, string> = {
    'kanban.yaml': `${header}current: ${tasks[0]}\ntasks:\n${tasks.map((t) => `  - ${t}`).join('\n')}\n`,
    'roles/manager.md': SEQUENTIAL_MANAGER,
    ...Object.fromEntries(tasks.map((t, i) => [t, `---\ntitle: task ${i + 1}\n---\nTask ${i + 1}.\n`])),
    ...files,
  };
  return makeBoard(board);
}

/** How hints name the program in tests: it is never on the PATH runCli gives (see pathWithoutUs). */
export const KS = 'npx kanban-supervisor';

/**
 * PATH without any folder that holds a kanban-supervisor program (a global install or `npm link`
 * on the machine running the tests), so that hints read `npx kanban-supervisor` everywhere.
 */
export function pathWithoutUs(pathValue = process.env.PATH ?? ''): string {
  return pathValue
    .split(path.delimiter)
    .filter((dir) => dir && !existsSync(path.join(dir, 'kanban-supervisor')))
    .join(path.delimiter);
}

/** Run the built CLI; never rejects. */
export function runCli(
  args: string[],
  options: { cwd?: string; env?: Record<string, string>; timeout?: number } = {},
): ResultPromise<{ reject: false }> {
  return execa('node', [CLI, ...args], {
    reject: false,
    cwd: options.cwd ?? ROOT,
    env: { NO_COLOR: '1', PATH: pathWithoutUs(), ...options.env },
    timeout: options.timeout ?? 60_000,
    stdin: 'ignore',
  }) as unknown as ResultPromise<{ reject: false }>;
}

/** Read a file of a board folder. */
export function read(dir: string, name: string): string {
  return readFileSync(path.join(dir, name), 'utf8');
}

/**
 * Every complete event of the board's events.jsonl (tests poll it while a run appends,
 * so a line not yet ended is not an event yet).
 */
export function events(dir: string): Array<Record<string, unknown>> {
  const lines = read(dir, '.kanban-supervisor/events.jsonl').split('\n');
  lines.pop(); // '' after the last newline, or the part of a line still being written
  return lines.map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** An event as EventLog writes it, for tests that hand events to their listeners (time and run given defaults). */
export function testEvent<T extends EventType>(type: T, fields: EventFields[T], run = 'r1', time = 't'): EventOf<T> {
  return { time, type, run, ...fields } as EventOf<T>;
}
