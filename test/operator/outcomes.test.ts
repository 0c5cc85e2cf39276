import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { boardWithTasks, fixtureRole, ROOT, runCli } from '../helpers.js';

const worker = fixtureRole('scripted.mjs', ['/dev/null']);

describe('the outcome line of every exit', () => {
  it('ends a halt for a person with the Manager\'s message and how to continue, on one line', async () => {
    const dir = boardWithTasks(2, { 'roles/implementor.md': worker });
    const answer = { status: 'blocked', message: 'which database?\nAsk the team', next_task: 'tasks/002.md', tasks: ['tasks/001.md', 'tasks/002.md'] };
    writeFileSync(path.join(dir, 'roles/manager.md'), fixtureRole('scripted.mjs', ['/dev/null', `json:${JSON.stringify(answer)}`]));
    const result = await runCli(['kanban.yaml'], { cwd: dir });
    expect(result.exitCode).toBe(4);
    expect(result.stderr).toBe(
      'kanban-supervisor: The Manager halted for a person (status blocked) after tasks/001.md: which database? Ask the team. Answer it (edit the task file or kanban.yaml), then run again to continue: kanban-supervisor kanban.yaml',
    );
  });

  it.each([
    ['done', [], 0, /^Done: the board has no next task \(2 step\(s\), [^)]+\)\. See what happened: kanban-supervisor report kanban\.yaml$/],
    ['one step', ['--once'], 0, /^Ran one step \(--once\) in \S+\. Run again to continue: kanban-supervisor kanban\.yaml$/],
    ['max steps', ['--max-steps', '1'], 5, /^kanban-supervisor: Stopped after max_steps \(1\) steps with tasks\/002\.md still current\. .*raise supervisor\.max_steps or pass --max-steps\.$/],
  ])('says what happened and what to do next when a run ends with %s', async (_, flags, code, line) => {
    const dir = boardWithTasks(2, { 'roles/implementor.md': worker });
    const result = await runCli(['kanban.yaml', '--quiet', ...flags], { cwd: dir });
    expect(result.exitCode).toBe(code);
    const text = code === 0 ? result.stdout : result.stderr;
    expect(text.split('\n')).toHaveLength(1);
    expect(text).toMatch(line);
    expect((code === 0 ? result.stderr : result.stdout)).toBe('');
  });
});

describe('the command line', () => {
  it.each(['run', 'init', 'status', 'validate', 'report'])('has --help for %s with real examples', async (command) => {
    const result = await runCli([command, '--help']);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(new RegExp(`^Usage: kanban-supervisor ${command === 'run' ? '\\[run\\]' : command} `));
    const examples = result.stdout.split('Examples:\n')[1] ?? '';
    expect(examples.split('\n').filter((l) => l.startsWith(`  kanban-supervisor ${command === 'run' ? '' : command}`)).length).toBeGreaterThanOrEqual(2);
    expect((await runCli(['help', command])).stdout).toBe(result.stdout);
  });

  it('prints the version of the package', async () => {
    const result = await runCli(['--version']);
    expect(result.stdout).toBe((JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version);
  });

  it.each([
    [['kanban.yaml', '--dryrun'], 'unknown option --dryrun for run. Did you mean --dry-run? See `kanban-supervisor run --help`.'],
    [['kanban.yaml', '--on-compete', 'x'], 'unknown option --on-compete for run. Did you mean --on-complete? See `kanban-supervisor run --help`.'],
    [['status', 'kanban.yaml', '--jsn'], 'unknown option --jsn for status. Did you mean --json? See `kanban-supervisor status --help`.'],
    [['validate', 'kanban.yaml', '--once'], 'unknown option --once for validate. --once is an option of `kanban-supervisor run`. See `kanban-supervisor validate --help`.'],
    [['stauts', 'kanban.yaml'], 'unknown command "stauts". Did you mean status? See `kanban-supervisor --help`.'],
    [['report'], 'report needs the path of kanban.yaml, e.g. `kanban-supervisor report kanban.yaml`.'],
  ])('refuses %j with exit 2 and the closest valid choice', async (args, message) => {
    const result = await runCli(args);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toBe(`kanban-supervisor: ${message}`);
  });
});
