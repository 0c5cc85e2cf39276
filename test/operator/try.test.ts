import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AGENTS, boardWithTasks, read, role, runCli, SEQUENTIAL_MANAGER, tempDir } from '../helpers.js';
import { jsonLines } from './snapshot.js';

interface Received {
  argv: string[];
  stdin: string;
  env: Record<string, string>;
  cwd: string;
}

/**
 * A board whose Implementor is the recording agent following `steps`,
 * its prompt naming {{instruction}} and {{task_file}}.
 */
function recordingBoard(...steps: string[]): { dir: string; record: string } {
  const dir = boardWithTasks(2, {});
  const record = path.join(dir, 'record.jsonl');
  writeFileSync(
    path.join(dir, 'roles/implementor.md'),
    role(
      ['node', path.join(AGENTS, 'scripted.mjs'), record, ...steps],
      'stdin: prompt\n',
      'Do this: {{instruction}}\nTask: {{task_file}}\n',
    ),
  );
  return { dir, record };
}

function received(record: string): Received[] {
  return jsonLines(readFileSync(record, 'utf8')) as unknown as Received[];
}

describe('try', () => {
  it(
    'runs one role once on --instruction, prints its validated reply as JSON, ' +
      'and leaves the board and its history alone',
    async () => {
      const { dir, record } = recordingBoard('valid');
      const board = read(dir, 'kanban.yaml');
      const result = await runCli(['try', 'Implementor', '--instruction', 'Say hello'], { cwd: dir });
      expect(result.exitCode).toBe(0);
      expect(result.stdout).toBe('{\n  "status": "ok",\n  "message": "done"\n}');
      expect(result.stderr).toMatch(
        /Implementor gave a valid reply \(status ok\)\. Its output: npx kanban-supervisor logs --try$/,
      );
      const [got] = received(record);
      expect(got?.stdin).toBe('Do this: Say hello\nTask: \n');
      expect(JSON.parse(got?.env.KANBAN_INPUT ?? '{}')).toEqual({
        role: 'Implementor',
        kanban_file: 'kanban.yaml',
        instruction: 'Say hello',
      });
      expect(got?.env.KANBAN_ROLE).toBe('Implementor');
      expect(got?.cwd).toBe(dir);
      expect(read(dir, 'kanban.yaml')).toBe(board);
      // No lock, no board history: its events and output are kept apart.
      expect(existsSync(path.join(dir, '.kanban-supervisor/run.lock'))).toBe(false);
      expect(existsSync(path.join(dir, '.kanban-supervisor/events.jsonl'))).toBe(false);
      const events = jsonLines(read(dir, '.kanban-supervisor/try/events.jsonl'));
      expect(events.map((e) => e.type)).toEqual([
        'run_started',
        'step_started',
        'attempt_started',
        'attempt_finished',
        'done',
      ]);
      expect(read(dir, String(events[3]?.stdoutFile))).toContain('{"status":"ok","message":"done"}');
      expect(String(events[3]?.stdoutFile)).toMatch(/^\.kanban-supervisor\/try\/runs\//);
      const logs = await runCli(['logs', '--try'], { cwd: dir });
      expect(logs.stdout.split('\n')[0]).toMatch(
        /^Implementor on instruction · run \S+, step 1, attempt 1 of 4 · .* replied ok/,
      );
    },
  );

  it('gives a task as task_file with --task, and retries invalid replies with the very same inputs', async () => {
    const { dir, record } = recordingBoard('garbage', 'bad-status', 'valid');
    const result = await runCli(['try', 'implementor', '--task', './tasks/002.md', '--instruction', 'Check it'], {
      cwd: dir,
    });
    expect(result.exitCode).toBe(0);
    const got = received(record);
    expect(got).toHaveLength(3);
    expect(got[0]?.stdin).toBe('Do this: Check it\nTask: tasks/002.md\n');
    expect(got[0]?.env.KANBAN_TASK_FILE).toBe('tasks/002.md');
    for (const later of got.slice(1)) {
      expect(later.argv).toEqual(got[0]?.argv);
      expect(later.stdin).toBe(got[0]?.stdin);
      expect(later.env.KANBAN_INPUT).toBe(got[0]?.env.KANBAN_INPUT);
    }
    // The retries are logged as a run's are.
    expect(read(dir, 'supervisor.log.md').match(/Retry Event/g)).toHaveLength(2);
  });

  it('exits 3 as a run does when no valid reply comes, and says where the output is', async () => {
    const { dir } = recordingBoard('garbage');
    const result = await runCli(['try', 'Implementor', '--instruction', 'x', '--max-retries', '1'], { cwd: dir });
    expect(result.exitCode).toBe(3);
    expect(result.stderr.split('\n').at(-1)).toMatch(
      new RegExp(
        String.raw`^kanban-supervisor: Implementor gave no valid reply for instruction in 2 attempt\(s\); ` +
          String.raw`the last one .* Fix the agent or roles\/implementor\.md, then try again\. Its output: ` +
          String.raw`npx kanban-supervisor logs --try$`,
      ),
    );
  });

  it("tries the Manager with --task as done_task, the tasks and --result, checked as a Manager's reply", async () => {
    const dir = boardWithTasks(2, { 'roles/manager.md': SEQUENTIAL_MANAGER });
    const result = await runCli(
      ['try', 'Manager', '--task', 'tasks/001.md', '--result', '{"status":"ok","message":"did it"}', '--quiet'],
      { cwd: dir },
    );
    expect(result.stderr).toBe('');
    expect(result.exitCode).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      status: 'ok',
      message: 'tasks/001.md is done; next is tasks/002.md',
      next_task: 'tasks/002.md',
      tasks: ['tasks/001.md', 'tasks/002.md'],
    });
    // A Manager reply naming a task that is not there is invalid, as in a run.
    const bad = boardWithTasks(1, {
      'roles/manager.md': role(
        [
          'node',
          '-e',
          'console.log(JSON.stringify({status:"ok",message:"m",next_task:"tasks/none.md",tasks:["tasks/none.md"]}))',
        ],
        'stdin: none\n',
      ),
    });
    const invalid = await runCli(['try', 'manager', '--instruction', 'pick', '--max-retries', '0', '--quiet'], {
      cwd: bad,
    });
    expect(invalid.exitCode).toBe(3);
    expect(invalid.stderr).toMatch(/tasks\/none\.md/);
  });

  it('runs the shipped shell agent on an instruction, so a fresh board can be tried with no API key', async () => {
    const dir = path.join(tempDir(), 'b');
    expect((await runCli(['init', dir])).exitCode).toBe(0);
    const result = await runCli(['try', 'Implementor', dir, '--instruction', 'echo "tried at $(pwd)"', '--quiet']);
    expect(result.exitCode).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      status: 'ok',
      message: `ran the sh block of the instruction: tried at ${dir}`,
    });
    expect(read(dir, 'tasks/001-example.md')).not.toMatch(/Work log/);
  });

  it.each([
    [
      ['try', 'Implementor'],
      new RegExp(
        String.raw`^kanban-supervisor: try needs something for Implementor to do: ` +
          String.raw`--instruction TEXT \(its \{\{instruction\}\}\) or --task FILE`,
      ),
    ],
    [
      ['try', '--instruction', 'x'],
      new RegExp(
        '^kanban-supervisor: try needs the role to run, e.g\\. `npx kanban-supervisor try Implementor ' +
          '--instruction "Say hello"`',
      ),
    ],
    [
      ['try', 'Tester', '--instruction', 'x'],
      /^kanban-supervisor: roles\/tester\.md: no such role file, but try needs role Tester\. Create roles\/tester\.md/,
    ],
    [
      ['try', 'Implementor', '--task', 'tasks/009.md'],
      /^kanban-supervisor: --task tasks\/009\.md: no such file in the board folder\./,
    ],
    [
      ['try', 'Implementor', '--task', '../x.md'],
      /^kanban-supervisor: --task \.\.\/x\.md: the task path .*leaves the board folder/,
    ],
    [
      ['try', 'Implementor', '--instruction', 'x', '--result', '{}'],
      /^kanban-supervisor: --result is the worker's reply the Manager hears about; Implementor gets none\./,
    ],
    [
      ['try', 'Manager', '--task', 'tasks/001.md', '--result', 'ok'],
      /^kanban-supervisor: --result must be a JSON object, the worker's reply \(got "ok"\)/,
    ],
    [
      ['try', 'Implementor', '--instruction', 'x'],
      /^kanban-supervisor: roles\/implementor\.md: the Implementor command "no-such-agent-cli" was not found on PATH/,
      role(['no-such-agent-cli']),
    ],
  ])('refuses %j with exit 2 and the fix, running and writing nothing', async (args, message, implementor?: string) => {
    const { dir, record } = recordingBoard('valid');
    if (implementor) writeFileSync(path.join(dir, 'roles/implementor.md'), implementor);
    const result = await runCli(args, { cwd: dir });
    expect(result.stderr).toMatch(message);
    expect(result.stderr.split('\n')).toHaveLength(1);
    expect(result.exitCode).toBe(2);
    expect(existsSync(record)).toBe(false);
    expect(existsSync(path.join(dir, '.kanban-supervisor'))).toBe(false);
  });
});
