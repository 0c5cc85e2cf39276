import { parseFrontMatter } from '../front-matter.js';
import { parseYaml } from '../yaml.js';
import { dependencyOrder } from './order.js';

/** A Backlog.md task file, as its front-matter says (Backlog.md writes it; nothing here changes it). */
export interface BacklogTask {
  /** Board-relative path, e.g. `backlog/tasks/task-1 - Write-the-greeting.md`. */
  file: string;
  /** The id as written (`TASK-1`); `key` is the same upper-cased, as Backlog.md matches ids. */
  id: string;
  key: string;
  status: string;
  dependencies: string[];
  ordinal?: number;
}

/** A task file read, or the one-line problem naming its file, line and fix. */
export type BacklogRead = { ok: true; task: BacklogTask } | { ok: false; message: string };

const FIX = 'Fix the front-matter between the --- lines (or let Backlog.md write it: backlog task edit).';

/** Read one Backlog.md task file's front-matter (pure). */
export function readBacklogTask(file: string, text: string): BacklogRead {
  const parsed = parseFrontMatter(text);
  if (!parsed.ok) return { ok: false, message: `${file}:${parsed.line}: ${parsed.message}. ${parsed.fix ?? FIX}` };
  const data = parsed.data;
  const wrong = (key: string, expected: string) => ({
    ok: false as const,
    message:
      `${file}:${parsed.lineOf(`/${key}`)}: ${key} must be ${expected} ` +
      `(got ${JSON.stringify(data[key]) ?? 'nothing'}). ${FIX}`,
  });
  const id = typeof data.id === 'number' ? String(data.id) : data.id;
  if (typeof id !== 'string' || id.trim() === '') return wrong('id', 'the task id Backlog.md gave it, e.g. TASK-1');
  if (data.status !== undefined && typeof data.status !== 'string') return wrong('status', 'a status, e.g. To Do');
  const dependencies = data.dependencies ?? [];
  if (!Array.isArray(dependencies) || !dependencies.every((d) => typeof d === 'string' || typeof d === 'number'))
    return wrong('dependencies', 'a list of task ids, e.g. [TASK-1]');
  if (data.ordinal !== undefined && data.ordinal !== null && typeof data.ordinal !== 'number')
    return wrong('ordinal', 'a number');
  return {
    ok: true,
    task: {
      file,
      id: id.trim(),
      key: keyOf(id),
      status: typeof data.status === 'string' ? data.status : '',
      dependencies: dependencies.map(keyOf),
      ...(typeof data.ordinal === 'number' && { ordinal: data.ordinal }),
    },
  };
}

/** How Backlog.md matches ids: `task-1` and `TASK-1` are one task. */
export function keyOf(id: string | number): string {
  return String(id).trim().toUpperCase();
}

/**
 * The status that means done in a Backlog.md config (pure): the last of its `statuses` (its
 * board's last column; `Done` by default), or `Done` when the config has none.
 */
export function doneStatusOf(configText: string | undefined): string {
  const parsed = configText === undefined ? undefined : parseYaml(configText);
  const statuses = parsed?.ok ? (parsed.value as { statuses?: unknown } | null)?.statuses : undefined;
  const last = Array.isArray(statuses) ? statuses.at(-1) : undefined;
  return typeof last === 'string' && last.trim() !== '' ? last.trim() : 'Done';
}

/** Whether a task's status is the done one (either spelling of `Done` counts, as Backlog.md's own). */
export function isDoneStatus(status: string, done: string): boolean {
  const said = status.trim().toLowerCase();
  return said === done.toLowerCase() || said === 'done';
}

/** What `init --from backlog` lists: the task files to run, in order; or the one-line problem. */
export type BacklogPlan = { ok: true; tasks: string[]; done: number } | { ok: false; message: string };

/**
 * The tasks to run and their order (pure): every task of `backlog/tasks/` not done, each after
 * the tasks it depends on, then by `ordinal` (tasks without one last), then by id. A dependency
 * must be a task to run or a done one (in tasks/ or completed/); else, like a cycle or an id
 * two files share, it is a problem naming the file and the fix.
 */
export function planBacklog(
  folder: string,
  tasks: readonly BacklogTask[],
  completed: readonly string[],
  doneStatus: string,
): BacklogPlan {
  const seen = new Map<string, BacklogTask>();
  for (const task of tasks) {
    const first = seen.get(task.key);
    if (first)
      return {
        ok: false,
        message:
          `${task.file}: its id ${task.id} is also the id of ${first.file}. ` +
          'Repair the duplicate ids with `backlog doctor`, then run init again.',
      };
    seen.set(task.key, task);
  }
  const pending = tasks.filter((task) => !isDoneStatus(task.status, doneStatus));
  const done = new Set([...tasks.filter((task) => !pending.includes(task)).map((t) => t.key), ...completed]);
  if (pending.length === 0)
    return {
      ok: false,
      message:
        `${folder}/tasks/: no task to run (${tasks.length} task file(s), every one ${doneStatus}). ` +
        'Create one with `backlog task create "Title"`, then run init again.',
    };
  const toRun = new Set(pending.map((task) => task.key));
  for (const task of pending)
    for (const key of task.dependencies)
      if (!toRun.has(key) && !done.has(key))
        return {
          ok: false,
          message:
            `${task.file}: ${task.id} depends on ${key}, which is neither a task to run in ${folder}/tasks/ nor a ` +
            `done one (in ${folder}/tasks/ or ${folder}/completed/), so it could never run. Set its dependencies ` +
            `without it (backlog task edit ${task.id} --dep <ids>, or --clear-deps), or create ${key}.`,
        };
  const ordered = dependencyOrder(
    pending.map((task) => ({ ...task, key: task.key })),
    (a, b) =>
      (a.ordinal ?? Infinity) - (b.ordinal ?? Infinity) || compareIds(a.key, b.key) || a.file.localeCompare(b.file),
  );
  if (!ordered.ok)
    return {
      ok: false,
      message:
        `${seen.get(ordered.cycle[0] as string)?.file ?? folder}: the dependencies go round in a circle ` +
        `(${ordered.cycle.join(' → ')}), so none of them can run first. Take one of them out ` +
        `(backlog task edit ${ordered.cycle[0] as string} --dep <ids>, or --clear-deps), then run init again.`,
    };
  return { ok: true, tasks: ordered.order.map((task) => task.file), done: tasks.length - pending.length };
}

// TASK-2 before TASK-10, TASK-1 before TASK-1.1: the numbers compared as numbers.
function compareIds(a: string, b: string): number {
  return a.localeCompare(b, 'en', { numeric: true });
}
