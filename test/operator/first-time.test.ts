import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import {
  boardWithTasks,
  CLI,
  events,
  fixtureRole,
  makeBoard,
  pathWithoutUs,
  role,
  runCli,
  SEQUENTIAL_MANAGER,
  tempDir,
} from '../helpers.js';

// What a first-time user met (issue 19), each through the real CLI on a temp board.

/** A folder with stand-ins for the agent CLIs, so that `validate` finds them on the PATH. */
function fakeClis(): string {
  const bin = tempDir('ks-bin-');
  for (const name of ['claude', 'codex', 'gemini']) {
    writeFileSync(path.join(bin, name), '#!/bin/sh\nexit 0\n');
    chmodSync(path.join(bin, name), 0o755);
  }
  return bin;
}

const withClis = (bin: string) => ({ PATH: `${bin}${path.delimiter}${pathWithoutUs()}` });

async function initBoard(agent: string): Promise<string> {
  const dir = tempDir();
  const made = await runCli(['init', dir, '--agent', agent]);
  expect(made.exitCode).toBe(0);
  return dir;
}

describe('every suggestion works as written', () => {
  it(
    'a board init makes has no role timeout that beats the board’s supervisor.timeout, ' +
      'and its shell role does not suggest a prompt-less Claude',
    async () => {
      const dir = await initBoard('shell');
      const plan = await runCli(['kanban.yaml', '--dry-run'], { cwd: dir });
      expect(plan.stdout).toMatch(/^ {2}timeout {4}30m00s \(from supervisor\.timeout in kanban\.yaml/m);
      const implementor = readFileSync(path.join(dir, 'roles/implementor.md'), 'utf8');
      // The suggestion names how the prompt reaches Claude; stdin: none beside it would give none.
      expect(implementor).toMatch(/command: \[claude, -p, --output-format, json\]\s*#?\s*with stdin: prompt/);
    },
  );

  it.each(['claude', 'codex', 'gemini'])('the %s board init makes validates with no warning', async (agent) => {
    const dir = await initBoard(agent);
    const result = await runCli(['validate'], { cwd: dir, env: withClis(fakeClis()) });
    expect(result.stdout).not.toMatch(/warning/);
    expect(result.exitCode).toBe(0);
  });

  it(
    'validate and --dry-run warn when a known agent CLI would get no prompt, ' +
      'and when a role timeout beats supervisor.timeout',
    async () => {
      const dir = boardWithTasks(
        1,
        { 'roles/implementor.md': role(['claude', '-p', '--output-format', 'json'], 'stdin: none\ntimeout: 1m\n') },
        'phase: execute\nsupervisor:\n  timeout: 30m\n',
      );
      const env = withClis(fakeClis());
      const checked = await runCli(['validate'], { cwd: dir, env });
      expect(checked.stdout).toMatch(
        new RegExp(
          '^roles\\/implementor\\.md:3: stdin is none and no argument of `command:` holds \\{\\{prompt\\}\\}, ' +
            'so claude gets no prompt at all\\. Use `stdin: prompt`, or pass the prompt as its last ' +
            String.raw`argument: "\{\{prompt\}\}".* \(warning\)$`,
          'm',
        ),
      );
      expect(checked.stdout).toMatch(
        new RegExp(
          String.raw`^roles\/implementor\.md:4: timeout 1m00s is shorter than supervisor\.timeout 30m00s in ` +
            String.raw`kanban\.yaml, and a role's timeout wins .*Implementor is stopped after 1m00s\..* \(warning\)$`,
          'm',
        ),
      );
      expect(checked.exitCode).toBe(0);
      const plan = await runCli(['kanban.yaml', '--dry-run'], { cwd: dir, env });
      expect(plan.stdout).toMatch(/^Warning: roles\/implementor\.md:3: stdin is none .*claude gets no prompt at all/m);
      expect(plan.stdout).toMatch(
        /^Warning: roles\/implementor\.md:4: timeout 1m00s is shorter than supervisor\.timeout 30m00s/m,
      );
    },
  );
});

describe('role names', () => {
  it.each(['rol', 'Role'])('a task key "%s:" is pointed out by validate and --dry-run, with the fix', async (key) => {
    const dir = boardWithTasks(1, {
      'tasks/001.md': `---\n${key}: Architect\ntitle: x\n---\nx\n`,
      'roles/implementor.md': role(['node', '-e', '0']),
    });
    const checked = await runCli(['validate'], { cwd: dir });
    expect(checked.stdout).toContain(
      `tasks/001.md:2: front-matter key "${key}" looks like a misspelt role and is ignored (it runs as ` +
        `Implementor, from the phase). If it names the role to run, rename it to role:. (warning)`,
    );
    const plan = await runCli(['kanban.yaml', '--dry-run'], { cwd: dir });
    expect(plan.stdout).toContain(`Warning: tasks/001.md:2: front-matter key "${key}" looks like a misspelt role`);
  });

  it('a run tells the pre-flight warnings once it starts: a line, and a warning event', async () => {
    const dir = boardWithTasks(1, {
      'tasks/001.md': '---\nrol: Architect\n---\nx\n',
      'roles/implementor.md': fixtureRole('exits-before-reading.mjs', [], 'stdin: none\n'),
      'roles/manager.md': SEQUENTIAL_MANAGER,
    });
    const result = await runCli(['kanban.yaml'], { cwd: dir });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toMatch(
      /^\S+ ! tasks\/001\.md:2: front-matter key "rol" looks like a misspelt role and is ignored .* \(warning\)$/m,
    );
    expect(events(dir).filter((e) => e.type === 'warning')).toEqual([
      expect.objectContaining({
        file: 'tasks/001.md',
        line: 2,
        message: expect.stringContaining('rename it to role:'),
      }),
    ]);
  });

  it('role: Implementer gets "did you mean Implementor", in validate and in the run it stops', async () => {
    const dir = boardWithTasks(1, {
      'tasks/001.md': '---\nrole: Implementer\n---\nx\n',
      'roles/implementor.md': role(['node', '-e', '0']),
    });
    const checked = await runCli(['validate'], { cwd: dir });
    expect(checked.stdout).toMatch(
      new RegExp(
        String.raw`^tasks\/001\.md:2: roles\/implementer\.md does not exist, ` +
          String.raw`but its front-matter asks for role Implementer\. Did you mean Implementor ` +
          String.raw`\(roles\/implementor\.md\)\?`,
        'm',
      ),
    );
    const run = await runCli(['kanban.yaml'], { cwd: dir });
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toMatch(/Did you mean Implementor \(roles\/implementor\.md\)\?/);
  });

  it('a role file in capitals (roles/Tester.md) is named, with the rename that makes it found', async () => {
    const dir = boardWithTasks(1, {
      'tasks/001.md': '---\nrole: Tester\n---\nx\n',
      'roles/Tester.md': role(['node', '-e', '0']),
    });
    const checked = await runCli(['validate'], { cwd: dir });
    expect(checked.exitCode).toBe(2);
    expect(checked.stdout).toMatch(
      new RegExp(
        String.raw`^tasks\/001\.md:2: roles\/tester\.md does not exist, .*roles\/Tester\.md exists, ` +
          String.raw`but role files are found by their lower-case name: rename it to roles\/tester\.md\.`,
        'm',
      ),
    );
  });
});

describe('a finished board', () => {
  it('says how to run a task added to it: in the Done line, validate and --dry-run', async () => {
    const dir = boardWithTasks(2, { 'roles/implementor.md': role(['node', '-e', '0']) });
    writeFileSync(
      path.join(dir, 'kanban.yaml'),
      'phase: execute\ncurrent: null\ntasks:\n  - tasks/001.md\n  - tasks/002.md\n',
    );
    const hint = 'To run a task, set `current:` in kanban.yaml to its path (one of tasks).';
    const run = await runCli(['kanban.yaml'], { cwd: dir });
    expect(run.exitCode).toBe(0);
    expect(run.stdout.trim()).toMatch(
      new RegExp(
        `^Done: the board has no next task \\(0 step\\(s\\), [^)]*\\)\\. ` +
          `${hint.replace(/[.*+?^${}()|[\]\\`]/g, '\\$&')}$`,
      ),
    );
    expect((await runCli(['validate'], { cwd: dir })).stdout).toMatch(
      new RegExp(
        `^kanban\\.yaml: OK — .* checked\\. current is null, so a run stops at once\\. ` +
          `${hint.replace(/[.*+?^${}()|[\]\\`]/g, '\\$&')}$`,
      ),
    );
    expect((await runCli(['kanban.yaml', '--dry-run'], { cwd: dir })).stdout).toContain(hint.slice(0, -1));
  });
});

describe('YAML mistakes', () => {
  it('an unclosed quote is reported at its own line, in plain words', async () => {
    const dir = boardWithTasks(1, {});
    writeFileSync(
      path.join(dir, 'kanban.yaml'),
      'phase: execute\ncurrent: tasks/001.md\ntasks: ["tasks/001.md\n  - x\nsupervisor:\n  timeout: 30m\n',
    );
    const checked = await runCli(['validate'], { cwd: dir });
    expect(checked.stdout.split('\n')[0]).toBe(
      'kanban.yaml:3: a double quote opened here is never closed. Close it with " at the end of the value, ' +
        'or remove it.',
    );
  });

  it('a value with ": " in it says to quote the value, not the library’s words', async () => {
    const dir = boardWithTasks(1, { 'tasks/001.md': '---\ntitle: Fix: the login page\n---\nx\n' });
    const checked = await runCli(['validate'], { cwd: dir });
    expect(checked.stdout.split('\n')[0]).toMatch(
      new RegExp(
        String.raw`^tasks\/001\.md:2: a value holds ": " \(a colon and a space\), ` +
          String.raw`which YAML reads as another key\. Quote the value`,
      ),
    );
    expect(checked.stdout).not.toMatch(/compact mappings/);
  });

  it(
    'an unquoted {{placeholder}} in argv is a problem naming file, line and fix, ' +
      'and the yaml library prints nothing',
    async () => {
      const dir = boardWithTasks(1, {
        'roles/implementor.md': '---\ncommand: [node, -e, "0", {{prompt}}]\nstdin: none\n---\nx\n',
      });
      for (const args of [['validate'], ['kanban.yaml']]) {
        const result = await runCli(args, { cwd: dir });
        expect(result.exitCode).toBe(2);
        expect(`${result.stdout}${result.stderr}`).toMatch(
          new RegExp(
            String.raw`roles\/implementor\.md:2: \{\{prompt\}\} is not in quotes, ` +
              String.raw`so YAML reads it as a mapping, not as text\. Quote`,
          ),
        );
        expect(`${result.stdout}${result.stderr}`).not.toMatch(/stringified|Warning: Keys/);
      }
    },
  );
});

describe('a crashed Node agent', () => {
  it('shows its error line, not the last frames of its stack', async () => {
    const dir = boardWithTasks(
      1,
      {
        'crash.mjs':
          'const x = null;\nconst a = () => x.boom();\nconst b = () => a();\nconst c = () => b();\n' +
          'await Promise.resolve();\nc();\n',
        'roles/implementor.md': role(['node', 'crash.mjs'], 'stdin: none\n'),
      },
      'phase: execute\nsupervisor:\n  max_retries: 0\n',
    );
    const run = await runCli(['kanban.yaml'], { cwd: dir });
    expect(run.exitCode).toBe(3);
    expect(run.stderr).toMatch(
      /stderr: TypeError: Cannot read properties of null \(reading 'boom'\) \(then a stack trace\)/,
    );
    expect(run.stderr).not.toMatch(/ModuleLoader|ModuleJob|at file:|at [abc] /);
    expect(run.stdout).toMatch(/✗ .*TypeError: Cannot read properties of null \(reading 'boom'\)/m);
    const failed = events(dir).find((e) => typeof e.issue === 'string');
    expect(String(failed?.issue)).toMatch(/TypeError: Cannot read properties of null/);
  });
});

describe('Ctrl-C on an idle --watch', () => {
  it('says no agent was running', async () => {
    const dir = makeBoard({
      'kanban.yaml': 'phase: execute\ncurrent: null\ntasks: []\n',
      'roles/manager.md': SEQUENTIAL_MANAGER,
    });
    mkdirSync(path.join(dir, 'tasks'));
    const child = execa('node', [CLI, 'kanban.yaml', '--watch'], {
      cwd: dir,
      reject: false,
      env: { NO_COLOR: '1' },
      stdin: 'ignore',
      timeout: 60_000,
    });
    for (let waited = 0; !existsSync(path.join(dir, '.kanban-supervisor/waiting.json')); waited += 100) {
      if (waited > 30_000 || child.nodeChildProcess.exitCode !== null)
        throw new Error(`never waited: ${String(child.stderr)}`);
      await delay(100);
    }
    child.kill('SIGINT');
    const result = await child;
    expect(result.exitCode).toBe(130);
    expect(String(result.stderr).trim()).toBe(
      'kanban-supervisor: Interrupted by SIGINT while waiting for an edit of the board: no agent was running. ' +
        'The board is unchanged; run again to resume at the current task.',
    );
  });
});

describe('plain words', () => {
  it('names fields as the file writes them, list items counted from 1, never as JSON pointers', async () => {
    const dir = boardWithTasks(
      2,
      { 'roles/implementor.md': '---\nstdin: none\n---\nx\n' },
      'phase: execute\nsupervisor:\n  timeout: soon\n',
    );
    rmSync(path.join(dir, 'tasks/002.md'));
    const checked = await runCli(['validate'], { cwd: dir });
    expect(checked.stdout).toContain('supervisor.timeout must be a duration like 90s, 20m or 1h30m (got "soon").');
    expect(checked.stdout).toContain('tasks item 2 "tasks/002.md": no such file. Create it or remove it from tasks.');
    expect(checked.stdout).toContain('roles/implementor.md:2: front-matter is missing the required field "command".');
    expect(checked.stdout).not.toMatch(/ \/\w|front-matter \/ /);
  });

  it('the exit-code table of docs/exit-codes.md lists each code once', () => {
    const page = readFileSync(path.join(import.meta.dirname, '../../docs/exit-codes.md'), 'utf8');
    const table = page.split('# Exit codes')[1]?.split('\n## ')[0] ?? '';
    const codes = [...table.matchAll(/^\| ([\d /]+) \|/gm)].map((m) => (m[1] as string).trim());
    expect(codes.length).toBeGreaterThan(8);
    expect(new Set(codes).size).toBe(codes.length);
  });
});
