import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { boardWithTasks, events, fixtureRole, read, role, runCli } from '../helpers.js';

const OK_WORKER = fixtureRole('exits-before-reading.mjs', [], 'stdin: none\n');

/** Run a one-task board after `prepare` set it up; expect one exit-2 line, no retry, the board as it was. */
async function expectConfigError(
  files: Record<string, string>,
  message: RegExp,
  prepare: (dir: string) => void = () => {},
) {
  const dir = boardWithTasks(1, { 'roles/implementor.md': OK_WORKER, ...files });
  prepare(dir);
  const before = read(dir, 'kanban.yaml');
  const result = await runCli(['kanban.yaml'], { cwd: dir });
  expect(result.exitCode).toBe(2);
  expect(result.stderr.trim()).toMatch(message);
  expect(result.stderr.trim().split('\n')).toHaveLength(1);
  expect(read(dir, 'kanban.yaml')).toBe(before);
  const all = existsSync(path.join(dir, '.kanban-supervisor', 'events.jsonl')) ? events(dir) : [];
  expect(all.filter((e) => e.type === 'retry')).toEqual([]);
  expect(all.filter((e) => e.type === 'attempt_started').length).toBeLessThanOrEqual(1);
  return { dir, all };
}

describe('agent commands that cannot run', () => {
  it('names the Manager role file when its command is not on PATH, before any agent runs', async () => {
    const { all } = await expectConfigError(
      { 'roles/manager.md': role(['no-such-manager-cli']) },
      new RegExp(
        String.raw`^kanban-supervisor: roles\/manager\.md:2: the Manager command "no-such-manager-cli" was not ` +
          'found on PATH\\. Install it, or fix `command:` in roles\\/manager\\.md\\.$',
      ),
    );
    expect(all.filter((e) => e.type === 'attempt_started').map((e) => e.role)).toEqual([]);
  });

  it.each([
    [
      'an absolute path that does not exist',
      () => role(['/no/such/agent']),
      /the Implementor command "\/no\/such\/agent" does not exist/,
    ],
    ['a folder', () => role(['./tasks']), /the Implementor command "\.\/tasks" is not a file/],
    [
      'a script without the executable bit',
      () => role(['./agent.sh']),
      /the Implementor command "\.\/agent\.sh" is not executable \(chmod \+x it\)/,
    ],
  ])('refuses a command that is %s with exit 2 before starting anything', async (_, roleFile, message) => {
    const { all } = await expectConfigError(
      { 'roles/implementor.md': roleFile(), 'agent.sh': '#!/bin/sh\necho hi\n' },
      message,
    );
    expect(all.filter((e) => e.type === 'attempt_started')).toEqual([]);
  });

  it('finds a program on a PATH entry relative to the board folder, where the agent starts', async () => {
    const dir = boardWithTasks(1, {
      'roles/implementor.md': role(['local-agent'], 'stdin: none\nenv: { PATH: "bin:/usr/bin:/bin" }\n'),
    });
    mkdirSync(path.join(dir, 'bin'));
    writeFileSync(path.join(dir, 'bin', 'local-agent'), '#!/bin/sh\necho \'{"status":"ok","message":"local"}\'\n');
    chmodSync(path.join(dir, 'bin', 'local-agent'), 0o755);
    const result = await runCli([path.join(dir, 'kanban.yaml'), '--once'], { cwd: path.dirname(dir) });
    expect(result.stderr).toBe('');
    expect(result.exitCode).toBe(0);
  });

  it('stops with exit 2, not a retry loop, when the #! interpreter of the command is missing', async () => {
    const { all } = await expectConfigError(
      { 'roles/implementor.md': role(['./agent.sh']) },
      new RegExp(
        String.raw`^kanban-supervisor: roles\/implementor\.md: the Implementor command "\.\/agent\.sh" could ` +
          String.raw`not be started: the program, or the interpreter on its #! line, does not exist\.`,
      ),
      (dir) => {
        writeFileSync(path.join(dir, 'agent.sh'), '#!/no/such/interpreter\necho hi\n');
        chmodSync(path.join(dir, 'agent.sh'), 0o755);
      },
    );
    expect(all.filter((e) => e.type === 'attempt_started')).toHaveLength(1);
    expect(all.at(-1)).toMatchObject({ type: 'halted', exitCode: 2 });
  });

  it('refuses a NUL byte in an argument or in env, which no program can receive', async () => {
    await expectConfigError(
      { 'roles/implementor.md': '---\ncommand: [node, "-e", "0\\0"]\n---\nx\n' },
      /roles\/implementor\.md: the Implementor command has a NUL byte in argument 2/,
    );
    await expectConfigError(
      { 'roles/implementor.md': '---\ncommand: [node, "-e", "0"]\nenv: { TOKEN: "a\\0b" }\n---\nx\n' },
      /roles\/implementor\.md: the Implementor command would get a NUL byte in environment variable TOKEN/,
    );
  });

  it('refuses an argument longer than the system accepts (a 200 KiB prompt in argv), pointing to stdin', async () => {
    const prompt = 'x'.repeat(200 * 1024);
    await expectConfigError(
      { 'roles/implementor.md': `---\ncommand: [node, "-e", "0", "{{prompt}}"]\nstdin: none\n---\n${prompt}\n` },
      new RegExp(
        String.raw`the Implementor command has an argument of 204801 bytes \(argument 3\); ` +
          String.raw`the system refuses more than 131071\. Give big inputs on stdin`,
      ),
    );
  });
});
