import { describe, expect, it } from 'vitest';
import { dependencyOrder } from '../../src/board/import/order.js';
import { doneStatusOf, planBacklog, readBacklogTask, type BacklogTask } from '../../src/board/import/backlog-md.js';
import { planTaskMaster } from '../../src/board/import/task-master.js';
import { parseFrontMatter } from '../../src/board/front-matter.js';

const byKey = (a: { key: string }, b: { key: string }) => a.key.localeCompare(b.key);

describe('dependencyOrder', () => {
  it('puts each task after the tasks it depends on, and ready tasks in the given order', () => {
    const tasks = [
      { key: 'a', dependencies: ['c'] },
      { key: 'b', dependencies: [] },
      { key: 'c', dependencies: ['b', 'gone'] },
      { key: 'd', dependencies: [] },
    ];
    const ordered = dependencyOrder(tasks, byKey);
    expect(ordered.ok && ordered.order.map((t) => t.key)).toEqual(['b', 'c', 'a', 'd']);
  });

  it('names a cycle by its keys, the first repeated last', () => {
    const ordered = dependencyOrder(
      [
        { key: 'a', dependencies: [] },
        { key: 'b', dependencies: ['c'] },
        { key: 'c', dependencies: ['d'] },
        { key: 'd', dependencies: ['b'] },
      ],
      byKey,
    );
    expect(ordered).toEqual({ ok: false, cycle: ['b', 'c', 'd', 'b'] });
    expect(dependencyOrder([{ key: 'a', dependencies: ['a'] }], byKey)).toEqual({ ok: false, cycle: ['a', 'a'] });
  });
});

/** A task file as Backlog.md 1.52 writes it. */
function backlogFile(id: string, fields: string, description = 'Do it.'): string {
  return (
    `---\nid: ${id}\ntitle: Task ${id}\n${fields}assignee: []\ncreated_date: '2026-11-29 01:48'\nlabels: []\n---\n\n` +
    `## Description\n\n<!-- SECTION:DESCRIPTION:BEGIN -->\n${description}\n<!-- SECTION:DESCRIPTION:END -->\n`
  );
}

function task(id: string, fields: string): BacklogTask {
  const read = readBacklogTask(`backlog/tasks/${id.toLowerCase()} - T.md`, backlogFile(id, fields));
  if (!read.ok) throw new Error(read.message);
  return read.task;
}

describe('Backlog.md: init --from backlog', () => {
  it('reads the front-matter Backlog.md writes: id, status, dependencies, ordinal and the rest', () => {
    const text =
      "---\nid: TASK-2\ntitle: Check the greeting\nstatus: To Do\nassignee: ['@me']\ncreated_date: '2026-11-29 01:48'\n" +
      "updated_date: '2026-11-29 02:00'\nlabels:\n  - docs\ndependencies:\n  - task-1\npriority: high\n" +
      'parent_task_id: TASK-1\nordinal: 1000\n---\n\n## Description\n';
    expect(readBacklogTask('backlog/tasks/task-2 - Check.md', text)).toEqual({
      ok: true,
      task: {
        file: 'backlog/tasks/task-2 - Check.md',
        id: 'TASK-2',
        key: 'TASK-2',
        status: 'To Do',
        dependencies: ['TASK-1'],
        ordinal: 1000,
      },
    });
  });

  it('names the file, the line and the fix for a field it cannot use', () => {
    const read = readBacklogTask('backlog/tasks/x.md', '---\nid: TASK-1\ntitle: x\ndependencies: TASK-2\n---\n');
    expect(read).toEqual({
      ok: false,
      message:
        'backlog/tasks/x.md:4: dependencies must be a list of task ids, e.g. [TASK-1] (got "TASK-2"). ' +
        'Fix the front-matter between the --- lines (or let Backlog.md write it: backlog task edit).',
    });
    expect(readBacklogTask('backlog/tasks/y.md', '---\ntitle: no id\n---\n')).toMatchObject({
      ok: false,
      message: expect.stringMatching(/^backlog\/tasks\/y\.md:2: id must be the task id Backlog\.md gave it/),
    });
  });

  it('orders by dependencies, then ordinal (none last), then id; done tasks are left out', () => {
    const tasks = [
      task('TASK-1', 'status: To Do\nordinal: 3000\n'),
      task('TASK-2', 'status: In Progress\ndependencies: [TASK-1]\nordinal: 1000\n'),
      task('TASK-3', 'status: Done\nordinal: 500\n'),
      task('TASK-10', 'status: To Do\n'),
      task('TASK-4', 'status: To Do\n'),
      task('TASK-5', 'status: To Do\ndependencies: [TASK-3, TASK-9]\nordinal: 2000\n'),
    ];
    const plan = planBacklog('backlog', tasks, ['TASK-9'], 'Done');
    expect(plan).toEqual({
      ok: true,
      done: 1,
      tasks: [
        'backlog/tasks/task-5 - T.md',
        'backlog/tasks/task-1 - T.md',
        'backlog/tasks/task-2 - T.md',
        'backlog/tasks/task-4 - T.md',
        'backlog/tasks/task-10 - T.md',
      ],
    });
  });

  it('takes the done status from the config: the last of its statuses', () => {
    expect(doneStatusOf('statuses: ["To Do", "In Progress", "Shipped"]\n')).toBe('Shipped');
    expect(doneStatusOf(undefined)).toBe('Done');
    expect(doneStatusOf('project_name: x\n')).toBe('Done');
    const plan = planBacklog(
      'backlog',
      [task('TASK-1', 'status: Shipped\n'), task('TASK-2', 'status: To Do\n')],
      [],
      'Shipped',
    );
    expect(plan).toMatchObject({ ok: true, done: 1, tasks: ['backlog/tasks/task-2 - T.md'] });
  });

  it('refuses a cycle, a dependency that could never run, a shared id and a backlog with nothing to run', () => {
    const cycle = planBacklog(
      'backlog',
      [task('TASK-1', 'dependencies: [TASK-2]\n'), task('TASK-2', 'dependencies: [TASK-1]\n')],
      [],
      'Done',
    );
    expect(cycle).toEqual({
      ok: false,
      message:
        'backlog/tasks/task-1 - T.md: the dependencies go round in a circle (TASK-1 → TASK-2 → TASK-1), so none ' +
        'of them can run first. Take one of them out (backlog task edit TASK-1 --dep <ids>, or --clear-deps), ' +
        'then run init again.',
    });
    expect(planBacklog('backlog', [task('TASK-1', 'dependencies: [TASK-7]\n')], [], 'Done')).toMatchObject({
      ok: false,
      message: expect.stringMatching(/^backlog\/tasks\/task-1 - T\.md: TASK-1 depends on TASK-7, which is neither/),
    });
    expect(planBacklog('backlog', [task('TASK-1', ''), task('task-1', '')], [], 'Done')).toMatchObject({
      ok: false,
      message: expect.stringContaining('its id task-1 is also the id of backlog/tasks/task-1 - T.md'),
    });
    expect(planBacklog('backlog', [task('TASK-1', 'status: done\n')], [], 'Done')).toEqual({
      ok: false,
      message:
        'backlog/tasks/: no task to run (1 task file(s), every one Done). Create one with ' +
        '`backlog task create "Title"`, then run init again.',
    });
  });
});

const WHERE = { tasksJson: '.taskmaster/tasks/tasks.json', stateJson: '.taskmaster/state.json' };

function tm(id: number, status: string, dependencies: Array<number | string> = [], extra = {}) {
  return {
    id,
    title: `Task number ${id}`,
    description: `What ${id} is.`,
    status,
    dependencies,
    priority: 'medium',
    details: `How to do ${id}.`,
    testStrategy: `How to check ${id}.`,
    ...extra,
  };
}

describe('task-master: init --from tasks.json', () => {
  it('writes the active tag’s tasks still to do as task files, in dependency order', () => {
    const json = JSON.stringify({
      master: { tasks: [tm(1, 'pending')], metadata: { created: '2026-01-01' } },
      feature: {
        tasks: [
          tm(1, 'done'),
          tm(2, 'pending', [3, '1']),
          tm(3, 'in-progress', [1], {
            subtasks: [
              { id: 1, title: 'First step', description: 'the start', status: 'done', dependencies: [] },
              { id: 2, title: 'Second step', status: 'pending', dependencies: [1] },
            ],
          }),
          tm(4, 'deferred'),
          tm(5, 'cancelled'),
          tm(10, 'review', ['2.1']),
        ],
        metadata: {},
      },
    });
    const plan = planTaskMaster(WHERE, json, '{"currentTag": "feature", "lastSwitched": "2026-01-01"}');
    if (!plan.ok) throw new Error(plan.message);
    expect(plan.tag).toBe('feature');
    expect(plan.left).toBe(3);
    expect(plan.files.map((f) => f.name)).toEqual([
      'tasks/003-task-number-3.md',
      'tasks/002-task-number-2.md',
      'tasks/010-task-number-10.md',
    ]);
    const three = parseFrontMatter(plan.files[0]?.content ?? '');
    expect(three.ok && three.data).toEqual({
      title: 'Task number 3',
      taskmaster: { tag: 'feature', id: 3 },
      priority: 'medium',
      dependencies: ['1'],
    });
    expect(three.ok && three.body).toBe(
      '# Task number 3\n\nWhat 3 is.\n\n## Details\n\nHow to do 3.\n\n## Test strategy\n\nHow to check 3.\n\n' +
        '## Subtasks\n\n- [x] 3.1 First step — the start\n- [ ] 3.2 Second step\n',
    );
  });

  it('reads the legacy format, and the master tag when there is no state.json', () => {
    const legacy = planTaskMaster(WHERE, JSON.stringify({ tasks: [tm(1, 'pending')] }));
    expect(legacy).toMatchObject({ ok: true, tag: 'master', files: [{ name: 'tasks/001-task-number-1.md' }] });
    const tagged = planTaskMaster(WHERE, JSON.stringify({ master: { tasks: [tm(7, 'pending')] } }));
    expect(tagged).toMatchObject({ ok: true, tag: 'master', files: [{ name: 'tasks/007-task-number-7.md' }] });
  });

  it('names the file and the fix for bad JSON, an unknown tag, a cycle and a dependency that cannot run', () => {
    expect(planTaskMaster(WHERE, '{"master": ')).toMatchObject({
      ok: false,
      message: expect.stringMatching(/^\.taskmaster\/tasks\/tasks\.json: not valid JSON \(.*\)\. Fix it by hand/),
    });
    const tags = JSON.stringify({ master: { tasks: [tm(1, 'pending')] }, v2: { tasks: [] } });
    expect(planTaskMaster(WHERE, tags, '{"currentTag": "gone"}')).toEqual({
      ok: false,
      message:
        '.taskmaster/state.json: the tag "gone" is not in .taskmaster/tasks/tasks.json (its tags: master, v2). ' +
        'Switch to one: task-master use-tag master.',
    });
    const cycle = JSON.stringify({ tasks: [tm(1, 'pending', [2]), tm(2, 'pending', [1])] });
    expect(planTaskMaster(WHERE, cycle)).toEqual({
      ok: false,
      message:
        '.taskmaster/tasks/tasks.json: tag master: the dependencies go round in a circle (tasks 1 → 2 → 1), so ' +
        'none of them can run first. Remove one: task-master remove-dependency --id=1 --depends-on=2.',
    });
    const deferred = JSON.stringify({ tasks: [tm(1, 'deferred'), tm(2, 'pending', [1])] });
    expect(planTaskMaster(WHERE, deferred)).toMatchObject({
      ok: false,
      message: expect.stringContaining('task 2 depends on task 1, which is deferred, so it could never run'),
    });
    const missing = JSON.stringify({ tasks: [tm(2, 'pending', [9])] });
    expect(planTaskMaster(WHERE, missing)).toMatchObject({
      ok: false,
      message: expect.stringContaining(
        'depends on task 9, which does not exist. Remove it: task-master fix-dependencies.',
      ),
    });
    expect(planTaskMaster(WHERE, JSON.stringify({ tasks: [tm(1, 'done')] }))).toMatchObject({
      ok: false,
      message: expect.stringContaining('tag master has no task to do (1 task(s), each done, cancelled or deferred)'),
    });
  });
});
