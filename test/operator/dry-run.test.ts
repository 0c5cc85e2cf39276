import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AGENTS, boardWithTasks, read, role, runCli } from '../helpers.js';
import { jsonLines, snapshot } from './snapshot.js';

const kanbanEnv = (env: Record<string, string>) =>
  Object.fromEntries(
    Object.entries(env).filter(([key]) => key.startsWith('KANBAN_') && key !== 'KANBAN_SUPERVISOR_TAG'),
  );

interface Received {
  argv: string[];
  stdin: string;
  env: Record<string, string>;
  cwd: string;
}

/**
 * A board whose worker is the recording agent, reading `stdin` (json or a prompt with placeholders),
 * with `extra` front-matter.
 */
function recordingBoard(
  stdin: 'json' | 'prompt' | 'none',
  extra = 'timeout: 7m\nenv: { ROLE_SETTING: on }\n',
  args: string[] = [],
): { dir: string; record: string } {
  const dir = boardWithTasks(2, {});
  const record = path.join(dir, 'record.jsonl');
  const body = 'Work on {{task_file}} of {{kanban_file}} as {{role}}.\nNo final newline here';
  writeFileSync(
    path.join(dir, 'roles/implementor.md'),
    role(['node', path.join(AGENTS, 'scripted.mjs'), record, 'valid', ...args], `stdin: ${stdin}\n${extra}`, body),
  );
  return { dir, record };
}

/** What the recording agent received on the first attempt of a real run (--once). */
async function realRun(dir: string, record: string): Promise<Received> {
  const run = await runCli([path.join(dir, 'kanban.yaml'), '--once']);
  expect(run.exitCode).toBe(0);
  return (jsonLines(readFileSync(record, 'utf8')) as unknown as Received[])[0] as Received;
}

/** The text between `----- label (N bytes) -----` and its end marker, as it was before printing. */
function block(out: string, label: string): string | undefined {
  const match = new RegExp(
    `\\n----- ${label} \\(\\d+ bytes\\) -----\\n([\\s\\S]*?)\\n----- end of ${label}( \\(no final newline\\))? ` +
      `-----\\n`,
  ).exec(out);
  return match ? `${match[1]}${match[2] ? '' : '\n'}` : undefined;
}

describe('--dry-run', () => {
  it.each(['json', 'prompt'] as const)(
    'prints (as JSON) the exact argv, stdin, KANBAN_* env and cwd that a real run then gives the agent (stdin: %s)',
    async (stdin) => {
      const { dir, record } = recordingBoard(stdin);
      const before = snapshot(dir);
      const dry = await runCli([path.join(dir, 'kanban.yaml'), '--dry-run', '--json']);
      expect(dry.stderr).toBe('');
      expect(dry.exitCode).toBe(0);
      expect(snapshot(dir)).toEqual(before); // nothing written: no lock, no events, no state folder

      const plan = JSON.parse(dry.stdout) as {
        warnings: string[];
        next: {
          argv: string[];
          stdin: string;
          env: Record<string, string>;
          cwd: string;
          timeoutMs: number;
          timeout: { from: string };
          role: string;
          roleFile: string;
        };
      };
      expect(plan.warnings).toEqual([]);
      expect(plan.next).toMatchObject({
        role: 'Implementor',
        roleFile: 'roles/implementor.md',
        timeoutMs: 7 * 60_000,
        timeout: { from: 'role' },
        cwd: dir,
      });
      // The role's env: is where keys go: its values are never printed, even as JSON.
      expect(plan.next.env.ROLE_SETTING).toBe('…(set, 2 chars)');

      const got = await realRun(dir, record);
      // Node reports argv[0] as its resolved executable; the rest is exactly what was passed.
      expect(plan.next.argv[0]).toBe('node');
      expect(got.argv.slice(1)).toEqual(plan.next.argv.slice(1));
      expect(got.stdin).toBe(plan.next.stdin);
      expect(kanbanEnv(got.env)).toEqual(kanbanEnv(plan.next.env));
      expect(got.env.ROLE_SETTING).toBe('on');
      expect(got.cwd).toBe(plan.next.cwd);
      if (stdin === 'prompt')
        expect(plan.next.stdin).toBe('Work on tasks/001.md of kanban.yaml as Implementor.\nNo final newline here');
    },
  );

  it('prints a person-readable plan whose argv words and stdin block are exactly what the agent receives', async () => {
    const { dir, record } = recordingBoard('prompt');
    const before = snapshot(dir);
    const dry = await runCli([path.join(dir, 'kanban.yaml'), '--dry-run']);
    expect(dry.exitCode).toBe(0);
    expect(snapshot(dir)).toEqual(before);
    const out = dry.stdout;
    expect(out).toMatch(/^Dry run: nothing was run, locked or written\.\nNext: Implementor on tasks\/001\.md\n/);
    expect(out).toMatch(/^ {2}role file {2}roles\/implementor\.md$/m);
    expect(out).toMatch(
      /^ {2}timeout {4}7m00s \(from roles\/implementor\.md timeout:, which wins over the 30m00s default\)$/m,
    );
    expect(out).toMatch(/^ {13}no idle timeout; up to 3 retries with these exact inputs$/m);
    expect(out).toMatch(/^ {2}env {8}KANBAN_ROLE=Implementor$/m);
    expect(out).toMatch(/^ {13}KANBAN_TASK_FILE=tasks\/001\.md$/m);
    expect(out).toMatch(/^ {13}ROLE_SETTING=…\(set, 2 chars\) {3}\(roles\/implementor\.md env:\)$/m);
    expect(out).toMatch(/Then: the Manager \(roles\/manager\.md: node .*sequential-manager\.js\)/);
    const argv = /^ {2}argv {7}(.*)$/m.exec(out)?.[1]?.split(' ');
    const printedStdin = block(out, 'stdin');

    const got = await realRun(dir, record);
    expect(argv?.slice(1)).toEqual(got.argv.slice(1)); // plain words: no quoting needed here
    expect(printedStdin).toBe(got.stdin);
  });

  it('sets a long or multi-line prompt argument out below the argv line, verbatim', async () => {
    const { dir, record } = recordingBoard('none', '', ['--', '{{prompt}}']);
    const dry = await runCli([path.join(dir, 'kanban.yaml'), '--dry-run']);
    expect(dry.exitCode).toBe(0);
    expect(dry.stdout).toMatch(
      /^ {2}argv {7}node \S+scripted\.mjs \S+record\.jsonl valid -- <prompt, 2 lines, see below>$/m,
    );
    expect(dry.stdout).toMatch(/^ {2}stdin {6}none \(\/dev\/null\)$/m);
    const prompt = block(dry.stdout, 'prompt');
    const got = await realRun(dir, record);
    expect(got.argv.at(-1)).toBe('Work on tasks/001.md of kanban.yaml as Implementor.\nNo final newline here');
    expect(prompt).toBe(got.argv.at(-1));
  });

  it.each([
    [
      'a role timeout: wins over --timeout and the board',
      'timeout: 7m\n',
      ['--timeout', '10m'],
      'supervisor:\n  timeout: 2m\n',
      '7m00s (from roles/implementor.md timeout:, which wins over --timeout 10m00s, ' +
        'supervisor.timeout in kanban.yaml 2m00s, the 30m00s default)',
    ],
    [
      '--timeout wins over the board',
      '',
      ['--timeout', '10m'],
      'supervisor:\n  timeout: 2m\n',
      '10m00s (from --timeout, which wins over supervisor.timeout in kanban.yaml 2m00s, the 30m00s default)',
    ],
    [
      'the board wins over the default',
      '',
      [],
      'supervisor:\n  timeout: 2m\n',
      '2m00s (from supervisor.timeout in kanban.yaml, which wins over the 30m00s default)',
    ],
    [
      'the default applies when nothing sets one',
      '',
      [],
      '',
      '30m00s (the default: neither roles/implementor.md timeout:, --timeout nor supervisor.timeout sets one)',
    ],
  ])('says which timeout wins and why: %s', async (_, roleLines, flags, boardLines, line) => {
    const { dir } = recordingBoard('none', roleLines);
    writeFileSync(path.join(dir, 'kanban.yaml'), `${read(dir, 'kanban.yaml')}${boardLines}`);
    const dry = await runCli([path.join(dir, 'kanban.yaml'), '--dry-run', ...flags]);
    expect(dry.exitCode).toBe(0);
    expect(dry.stdout).toContain(`\n  timeout    ${line}\n`);
  });

  it('masks the values of the role env: and of inherited secrets, and never prints them', async () => {
    const { dir } = recordingBoard('none', 'env: { SERVICE_TOKEN: tok-role-1234, MODE: fast }\n');
    const dry = await runCli([path.join(dir, 'kanban.yaml'), '--dry-run'], {
      env: { ANTHROPIC_API_KEY: 'sk-inherited-abcdef', HARMLESS_SETTING: 'visible?' },
    });
    expect(dry.exitCode).toBe(0);
    expect(dry.stdout).toMatch(/^ {13}MODE=…\(set, 4 chars\) {3}\(roles\/implementor\.md env:\)$/m);
    expect(dry.stdout).toMatch(/^ {13}SERVICE_TOKEN=…\(set, 13 chars\) {3}\(roles\/implementor\.md env:\)$/m);
    expect(dry.stdout).toMatch(/^ {13}ANTHROPIC_API_KEY=…\(set, 19 chars\) {3}\(inherited\)$/m);
    for (const secret of ['tok-role-1234', 'fast', 'sk-inherited-abcdef']) expect(dry.stdout).not.toContain(secret);
    // Inherited variables that are no secret are not listed: only what the agent gets that matters.
    expect(dry.stdout).not.toContain('HARMLESS_SETTING');
    const json = await runCli([path.join(dir, 'kanban.yaml'), '--dry-run', '--json'], {
      env: { ANTHROPIC_API_KEY: 'sk-inherited-abcdef' },
    });
    for (const secret of ['tok-role-1234', 'sk-inherited-abcdef']) expect(json.stdout).not.toContain(secret);
  });

  it('says there is nothing to run on a finished board', async () => {
    const done = boardWithTasks(1, { 'roles/implementor.md': role(['true']) });
    writeFileSync(path.join(done, 'kanban.yaml'), 'current: null\ntasks:\n  - tasks/001.md\n');
    const nothing = await runCli([path.join(done, 'kanban.yaml'), '--dry-run']);
    expect(nothing.exitCode).toBe(0);
    expect(nothing.stdout).toBe(
      'Dry run: nothing was run, locked or written. Nothing to run: the board has no next task (current: null). ' +
        'To run a task, set `current:` in kanban.yaml to its path (one of tasks).',
    );
  });

  it('shows the plan with a warning when the agent program is not installed, which a run refuses', async () => {
    const broken = boardWithTasks(1, { 'roles/implementor.md': role(['no-such-agent-cli', '-p', '{{prompt}}']) });
    const before = snapshot(broken);
    const dry = await runCli([path.join(broken, 'kanban.yaml'), '--dry-run']);
    expect(dry.exitCode).toBe(0);
    expect(dry.stdout).toMatch(
      new RegExp(
        String.raw`^Warning: roles\/implementor\.md: the Implementor command "no-such-agent-cli" was not found ` +
          'on PATH\\. Install it, or fix `command:` in roles\\/implementor\\.md\\. ' +
          String.raw`A run would stop here with exit 2\.$`,
        'm',
      ),
    );
    expect(dry.stdout).toMatch(/^ {2}argv {7}no-such-agent-cli -p <prompt, 1 line, see below>$/m);
    expect(block(dry.stdout, 'prompt')).toBe('Do tasks/001.md.\n');
    expect(snapshot(broken)).toEqual(before);
    const run = await runCli([path.join(broken, 'kanban.yaml')]);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toMatch(
      /roles\/implementor\.md:2: the Implementor command "no-such-agent-cli" was not found on PATH/,
    );
  });
});
