import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { boardWithTasks, fixtureRole, KS, ROOT, runCli } from '../helpers.js';
import { snapshot } from './snapshot.js';

const worker = fixtureRole('scripted.mjs', ['/dev/null']);

describe('the outcome line of every exit', () => {
  it("ends a halt for a person with the Manager's message and how to continue, on one line", async () => {
    const dir = boardWithTasks(2, { 'roles/implementor.md': worker });
    const answer = {
      status: 'blocked',
      message: 'which database?\nAsk the team',
      next_task: 'tasks/002.md',
      tasks: ['tasks/001.md', 'tasks/002.md'],
    };
    writeFileSync(
      path.join(dir, 'roles/manager.md'),
      fixtureRole('scripted.mjs', ['/dev/null', `json:${JSON.stringify(answer)}`]),
    );
    const result = await runCli(['kanban.yaml'], { cwd: dir });
    expect(result.exitCode).toBe(4);
    expect(result.stderr).toBe(
      'kanban-supervisor: The Manager halted for a person (status blocked) after tasks/001.md: ' +
        'which database? Ask the team. Answer it (edit the task file or kanban.yaml), then run again to continue: ' +
        'npx kanban-supervisor kanban.yaml',
    );
  });

  it.each([
    [
      'done',
      [],
      0,
      new RegExp(
        String.raw`^Done: the board has no next task \(2 step\(s\), [^)]+\)\. See what happened: ` +
          String.raw`npx kanban-supervisor report kanban\.yaml$`,
      ),
    ],
    [
      'one step',
      ['--once'],
      0,
      /^Ran one step \(--once\) in \S+\. Run again to continue: npx kanban-supervisor kanban\.yaml$/,
    ],
    [
      'max steps',
      ['--max-steps', '1'],
      5,
      new RegExp(
        String.raw`^kanban-supervisor: Stopped after max_steps \(1\) steps with tasks\/002\.md still current\. ` +
          String.raw`.*raise supervisor\.max_steps or pass --max-steps\.$`,
      ),
    ],
  ])('says what happened and what to do next when a run ends with %s', async (_, flags, code, line) => {
    const dir = boardWithTasks(2, { 'roles/implementor.md': worker });
    const result = await runCli(['kanban.yaml', '--quiet', ...flags], { cwd: dir });
    expect(result.exitCode).toBe(code);
    const text = code === 0 ? result.stdout : result.stderr;
    expect(text.split('\n')).toHaveLength(1);
    expect(text).toMatch(line);
    expect(code === 0 ? result.stderr : result.stdout).toBe('');
  });
});

describe('the command line', () => {
  it.each(['run', 'init', 'status', 'validate', 'report', 'logs', 'try'])(
    'has --help for %s with real examples',
    async (command) => {
      const result = await runCli([command, '--help']);
      expect(result.exitCode).toBe(0);
      expect(result.stdout).toMatch(new RegExp(`^Usage: ${KS} ${command === 'run' ? '\\[run\\]' : command} `));
      const examples = result.stdout.split('Examples:\n')[1] ?? '';
      expect(
        examples.split('\n').filter((l) => l.startsWith(`  ${KS}${command === 'run' ? '' : ` ${command}`}`)).length,
      ).toBeGreaterThanOrEqual(2);
      expect((await runCli(['help', command])).stdout).toBe(result.stdout);
    },
  );

  it.each([['--version'], ['-v'], ['version']])(
    'prints the version of the package for %j, even where a board named like the command could be',
    async (...args) => {
      const dir = boardWithTasks(1, { 'roles/implementor.md': worker });
      const result = await runCli(args, { cwd: dir });
      expect(result.exitCode).toBe(0);
      expect(result.stdout).toBe(
        (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version,
      );
    },
  );

  it.each([
    [['kanban.yaml', '--dryrun'], `unknown option --dryrun for run. Did you mean --dry-run? See \`${KS} run --help\`.`],
    [
      ['kanban.yaml', '--on-compete', 'x'],
      `unknown option --on-compete for run. Did you mean --on-complete? See \`${KS} run --help\`.`,
    ],
    [
      ['status', 'kanban.yaml', '--jsn'],
      `unknown option --jsn for status. Did you mean --json? See \`${KS} status --help\`.`,
    ],
    [
      ['validate', 'kanban.yaml', '--once'],
      `unknown option --once for validate. --once is an option of \`${KS} run\`. See \`${KS} validate --help\`.`,
    ],
    [['stauts', 'kanban.yaml'], `unknown command "stauts". Did you mean status? See \`${KS} --help\`.`],
    [
      ['help', 'stauts'],
      `there is no command "stauts". Did you mean status? Commands: run, init, status, validate, report, logs, ` +
        `try, version, help. See \`${KS} --help\`.`,
    ],
    [
      ['help', 'frobnicate'],
      `there is no command "frobnicate". Commands: run, init, status, validate, report, logs, try, version, ` +
        `help. See \`${KS} --help\`.`,
    ],
    [['kanban.yaml', '--max-retries'], `--max-retries needs a value, e.g. --max-retries 2. See \`${KS} run --help\`.`],
    [
      ['kanban.yaml', '--timeout', '--once'],
      `--timeout needs a value, but the next word is the option --once. ` +
        `Put the value right after it (--timeout 20m); a value that starts with - is written --timeout=-VALUE. ` +
        `See \`${KS} run --help\`.`,
    ],
    [
      ['kanban.yaml', '--once=yes'],
      `--once takes no value (got --once=yes). Write --once alone. See \`${KS} run --help\`.`,
    ],
    [
      ['kanban.yaml', '--max-retries', 'abc'],
      '--max-retries must be a whole number >= 0 (got "abc"), e.g. --max-retries 2.',
    ],
    [['kanban.yaml', '--max-steps', '0'], '--max-steps must be a whole number >= 1 (got "0"), e.g. --max-steps 3.'],
    [
      ['status', 'kanban.yaml', 'extra'],
      `unexpected argument "extra": status takes one board (a kanban.yaml or its folder). Remove "extra". ` +
        `See \`${KS} status --help\`.`,
    ],
    [
      ['version', 'now'],
      `unexpected argument "now": version takes no arguments. Remove "now". See \`${KS} version --help\`.`,
    ],
    [
      ['help', 'run', 'now'],
      `unexpected argument "now": help takes one command. Remove "now". See \`${KS} help --help\`.`,
    ],
  ])('refuses %j with exit 2, plain words and the fix', async (args, message) => {
    const dir = boardWithTasks(1, { 'roles/implementor.md': worker });
    const before = snapshot(dir);
    const result = await runCli(args, { cwd: dir });
    expect(result.stderr).toBe(`kanban-supervisor: ${message}`);
    expect(result.exitCode).toBe(2);
    expect(snapshot(dir)).toEqual(before);
  });
});
