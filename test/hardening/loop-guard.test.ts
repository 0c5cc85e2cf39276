import { describe, expect, it } from 'vitest';
import { boardWithTasks, events, fixtureRole, read, runCli } from '../helpers.js';

const OK_WORKER = fixtureRole('exits-before-reading.mjs', [], 'stdin: none\n');
const BLOCKED_WORKER = fixtureRole(
  'scripted.mjs',
  ['/dev/null', 'json:{"status":"blocked","message":"waiting for a person"}'],
  'stdin: none\n',
);

async function run(tasks: number, files: Record<string, string>, flags: string[] = [], header = 'phase: execute\n') {
  const dir = boardWithTasks(tasks, { 'roles/implementor.md': OK_WORKER, ...files }, header);
  const result = await runCli(['kanban.yaml', ...flags], { cwd: dir });
  const steps = events(dir)
    .filter((e) => e.type === 'step_started')
    .map((e) => e.task);
  return { dir, result, steps };
}

describe('the loop guard', () => {
  it('halts with exit 5 after --max-steps when a Manager keeps the board going round', async () => {
    const { dir, result, steps } = await run(
      2,
      { 'roles/manager.md': fixtureRole('manager-picks.mjs', ['other'], 'stdin: none\n') },
      ['--max-steps', '4'],
    );
    expect(result.exitCode).toBe(5);
    expect(result.stderr.trim()).toBe(
      'kanban-supervisor: Stopped after max_steps (4) steps with tasks/001.md still current. ' +
        'If the Manager is going round in circles, fix it; else raise supervisor.max_steps or pass --max-steps.',
    );
    expect(steps).toEqual(['tasks/001.md', 'tasks/002.md', 'tasks/001.md', 'tasks/002.md']);
    expect(events(dir).at(-1)).toMatchObject({ type: 'halted', exitCode: 5 });
  });

  it('takes max_steps from the board, and --max-steps over it', async () => {
    const manager = { 'roles/manager.md': fixtureRole('manager-picks.mjs', ['other'], 'stdin: none\n') };
    const header = 'phase: execute\nsupervisor:\n  max_steps: 3\n';
    const [board, flag] = await Promise.all([
      run(2, manager, [], header),
      run(2, manager, ['--max-steps', '1'], header),
    ]);
    expect([board.result.exitCode, board.steps.length]).toEqual([5, 3]);
    expect([flag.result.exitCode, flag.steps.length]).toEqual([5, 1]);
  });

  it('counts a run finishing on its last allowed step as a success, and one step fewer as a guard stop', async () => {
    const [exact, short] = await Promise.all([run(3, {}, ['--max-steps', '3']), run(3, {}, ['--max-steps', '2'])]);
    expect(exact.result.exitCode).toBe(0);
    expect(exact.steps).toHaveLength(3);
    expect(read(exact.dir, 'kanban.yaml')).toMatch(/^current: null$/m);
    expect(short.result.exitCode).toBe(5);
    expect(short.steps).toHaveLength(2);
  });

  it('halts with exit 5 when the Manager picks the same task after an ok reply 5 times in a row', async () => {
    const { result, steps } = await run(2, {
      'roles/manager.md': fixtureRole('manager-picks.mjs', ['same'], 'stdin: none\n'),
    });
    expect(result.exitCode).toBe(5);
    expect(result.stderr).toMatch(
      /The Manager picked tasks\/001\.md again 5 times in a row after ok replies; stopped as a loop guard\./,
    );
    expect(steps).toEqual(Array(5).fill('tasks/001.md'));
  });

  it('takes the same-task limit from supervisor.max_same_task', async () => {
    const { result, steps } = await run(
      2,
      { 'roles/manager.md': fixtureRole('manager-picks.mjs', ['same'], 'stdin: none\n') },
      [],
      'phase: execute\nsupervisor:\n  max_same_task: 2\n',
    );
    expect(result.exitCode).toBe(5);
    expect(steps).toHaveLength(2);
  });

  it('does not count a task run again after a reply other than ok (the Manager may retry it on purpose)', async () => {
    const { result, steps } = await run(
      2,
      {
        'roles/implementor.md': BLOCKED_WORKER,
        'roles/manager.md': fixtureRole('manager-picks.mjs', ['same'], 'stdin: none\n'),
      },
      ['--max-steps', '7'],
    );
    expect(result.exitCode).toBe(5);
    expect(result.stderr).toMatch(/Stopped after max_steps \(7\) steps/);
    expect(steps).toHaveLength(7);
  });
});
