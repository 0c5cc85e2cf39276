import { stringify } from 'yaml';
import { dependencyOrder } from './order.js';

/** Statuses whose tasks are not run: finished, or set aside in task-master itself. */
const LEFT_OUT = new Set(['done', 'cancelled', 'deferred']);

/** Where the two files were found, as the messages show them. */
export interface TaskMasterFiles {
  tasksJson: string;
  stateJson: string;
}

/** What `init --from tasks.json` writes: the task files in order (board path → content), or the problem. */
export type TaskMasterPlan =
  | { ok: true; tag: string; files: Array<{ name: string; content: string }>; left: number }
  | { ok: false; message: string };

interface Task {
  id: string;
  title: string;
  status: string;
  dependencies: string[];
  record: Record<string, unknown>;
}

/**
 * The active tag's tasks still to do, as task files in dependency order (pure). Reads the
 * tagged format (`{ "<tag>": { "tasks": [...], "metadata": {...} } }`, the tag from state.json's
 * `currentTag`, else `master`) and the legacy one (`{ "tasks": [...] }`). Tasks done, cancelled or
 * deferred are left out; a dependency must be done or a task to run.
 */
export function planTaskMaster(where: TaskMasterFiles, tasksText: string, stateText?: string): TaskMasterPlan {
  const fail = (message: string): TaskMasterPlan => ({ ok: false, message });
  let data: unknown;
  try {
    data = JSON.parse(tasksText);
  } catch (error) {
    return fail(
      `${where.tasksJson}: not valid JSON (${(error as Error).message}). Fix it by hand, or restore it from git.`,
    );
  }
  if (!isRecord(data))
    return fail(`${where.tasksJson}: must hold a JSON object of tags ({"master": {"tasks": [...]}}). Fix the file.`);
  let tag = 'master';
  let list: unknown = data.tasks;
  if (!Array.isArray(list)) {
    const state = readState(where.stateJson, stateText);
    if (!state.ok) return state;
    tag = state.tag ?? 'master';
    const tags = Object.keys(data).filter((key) => isRecord(data[key]) && Array.isArray(data[key].tasks));
    const entry = data[tag];
    if (!isRecord(entry) || !Array.isArray(entry.tasks))
      return fail(
        `${state.tag === undefined ? where.tasksJson : where.stateJson}: the tag "${tag}" is not in ` +
          `${where.tasksJson} (its tags: ${tags.join(', ') || 'none'}). ` +
          (tags.length ? `Switch to one: task-master use-tag ${tags[0] as string}.` : 'Create tasks with task-master.'),
      );
    list = entry.tasks;
  }
  const tasks: Task[] = [];
  for (const [i, raw] of (list as unknown[]).entries()) {
    const at = `${where.tasksJson}: tag ${tag}, task ${i + 1} of ${(list as unknown[]).length}`;
    if (!isRecord(raw)) return fail(`${at} is not an object. Fix the file.`);
    if (typeof raw.id !== 'number' && (typeof raw.id !== 'string' || raw.id.trim() === ''))
      return fail(`${at} has no id (a number or a string). Fix the file.`);
    if (typeof raw.title !== 'string' || raw.title.trim() === '')
      return fail(`${at} (id ${String(raw.id)}) has no title. Fix the file.`);
    const dependencies = raw.dependencies ?? [];
    if (!Array.isArray(dependencies) || !dependencies.every((d) => typeof d === 'number' || typeof d === 'string'))
      return fail(`${at} (id ${String(raw.id)}): dependencies must be a list of task ids. Fix the file.`);
    const id = String(raw.id).trim();
    if (tasks.some((task) => task.id === id))
      return fail(`${at}: the id ${id} is taken by an earlier task. Give it an id of its own.`);
    tasks.push({
      id,
      title: raw.title.trim(),
      status: typeof raw.status === 'string' ? raw.status.trim().toLowerCase() : 'pending',
      // "3.2" is task 3's subtask: waiting for it is waiting for task 3.
      dependencies: dependencies.map((d) => String(d).trim().split('.')[0] as string).filter((d) => d !== id),
      record: raw,
    });
  }
  const pending = tasks.filter((task) => !LEFT_OUT.has(task.status));
  if (pending.length === 0)
    return fail(
      `${where.tasksJson}: tag ${tag} has no task to do (${tasks.length} task(s), each done, cancelled or deferred). ` +
        'Add tasks with task-master (task-master add-task), or switch tags (task-master use-tag).',
    );
  const byId = new Map(tasks.map((task) => [task.id, task]));
  for (const task of pending)
    for (const id of task.dependencies) {
      const needed = byId.get(id);
      if (needed === undefined)
        return fail(
          `${where.tasksJson}: tag ${tag}, task ${task.id} depends on task ${id}, which does not exist. ` +
            'Remove it: task-master fix-dependencies.',
        );
      if (needed.status === 'cancelled' || needed.status === 'deferred')
        return fail(
          `${where.tasksJson}: tag ${tag}, task ${task.id} depends on task ${id}, which is ${needed.status}, so it ` +
            `could never run. Set ${id} pending (task-master set-status --id=${id} --status=pending) or remove ` +
            `the dependency (task-master remove-dependency --id=${task.id} --depends-on=${id}).`,
        );
    }
  const ordered = dependencyOrder(
    pending.map((task) => ({ ...task, key: task.id })),
    (a, b) => a.id.localeCompare(b.id, 'en', { numeric: true }),
  );
  if (!ordered.ok)
    return fail(
      `${where.tasksJson}: tag ${tag}: the dependencies go round in a circle (tasks ${ordered.cycle.join(' → ')}), ` +
        `so none of them can run first. Remove one: task-master remove-dependency --id=${ordered.cycle[0] as string} ` +
        `--depends-on=${ordered.cycle[1] as string}.`,
    );
  const width = Math.max(3, ...ordered.order.map((task) => task.id.length));
  return {
    ok: true,
    tag,
    files: ordered.order.map((task) => ({ name: taskFileName(task, width), content: taskFile(task, tag) })),
    left: tasks.length - pending.length,
  };
}

// state.json is optional (task-master writes it with the first tag switch); its currentTag names the active tag.
function readState(shown: string, text?: string): { ok: true; tag?: string } | { ok: false; message: string } {
  if (text === undefined) return { ok: true };
  let state: unknown;
  try {
    state = JSON.parse(text);
  } catch (error) {
    return {
      ok: false,
      message:
        `${shown}: not valid JSON (${(error as Error).message}). Fix it, or switch tags again: ` +
        `task-master use-tag master.`,
    };
  }
  const tag = isRecord(state) ? state.currentTag : undefined;
  if (tag !== undefined && typeof tag !== 'string')
    return { ok: false, message: `${shown}: currentTag must be a tag name. Switch tags: task-master use-tag master.` };
  return { ok: true, ...(tag !== undefined && { tag }) };
}

// tasks/003-implement-the-api.md: the task-master id, padded so the files sort as the ids do.
function taskFileName(task: Task, width: number): string {
  const slug = task.title
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/, '');
  const id = task.id.replace(/[^A-Za-z0-9]+/g, '-').padStart(width, '0');
  return `tasks/${id}${slug ? `-${slug}` : ''}.md`;
}

// The front-matter says where the task came from; the body carries what task-master holds in prose.
function taskFile(task: Task, tag: string): string {
  const { record } = task;
  const meta: Record<string, unknown> = { title: task.title, taskmaster: { tag, id: record.id } };
  if (typeof record.priority === 'string') meta.priority = record.priority;
  if (task.dependencies.length) meta.dependencies = task.dependencies;
  const text = (key: string) => (typeof record[key] === 'string' ? (record[key] as string).trim() : '');
  const sections = [
    `# ${task.title.replace(/\s+/g, ' ')}`,
    text('description'),
    text('details') && `## Details\n\n${text('details')}`,
    text('testStrategy') && `## Test strategy\n\n${text('testStrategy')}`,
    subtaskList(record.subtasks, task.id),
  ].filter(Boolean);
  return `---\n${stringify(meta)}---\n${sections.join('\n\n')}\n`;
}

// Subtasks are the task's own steps: one checklist, done ones ticked.
function subtaskList(subtasks: unknown, parent: string): string {
  if (!Array.isArray(subtasks) || subtasks.length === 0) return '';
  const lines = subtasks.filter(isRecord).map((sub) => {
    const done = typeof sub.status === 'string' && sub.status.toLowerCase() === 'done';
    const title = typeof sub.title === 'string' ? sub.title.trim() : '';
    const description = typeof sub.description === 'string' ? ` — ${sub.description.trim()}` : '';
    return `- [${done ? 'x' : ' '}] ${parent}.${String(sub.id)} ${title}${description}`.replace(/\n+/g, ' ');
  });
  return `## Subtasks\n\n${lines.join('\n')}`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
