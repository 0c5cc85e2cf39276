import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { InputError } from '../errors.js';
import { readRegular } from '../fs/safe-read.js';
import { doneStatusOf, planBacklog, readBacklogTask, type BacklogTask } from '../board/import/backlog-md.js';
import { planTaskMaster } from '../board/import/task-master.js';
import { parseYaml } from '../board/yaml.js';

/** A board made from a board people keep: its files (board path → content) and what init says of it. */
export interface ImportedBoard {
  files: Record<string, string>;
  said: string;
}

// A task file's front-matter is at its head (agents append work logs below it).
const HEAD_BYTES = 256 * 1024;
const TASKS_JSON_BYTES = 64 * 1024 * 1024;

/**
 * The board `init --from` writes in `dir`: `backlog` lists a Backlog.md project's own task files
 * (never copied or changed); `PATH/tasks.json` writes task-master's active tag as task files once.
 * `roles` are the agent preset's role files. Reads only: every problem is an InputError before a write.
 */
export function importBoard(dir: string, from: string, roles: Record<string, string>): ImportedBoard {
  if (from === 'backlog') return fromBacklog(dir, roles);
  if (path.basename(from) === 'tasks.json') return fromTaskMaster(from, roles);
  throw new InputError(
    `--from must be backlog (a Backlog.md project's folder is the board) or the path of a task-master ` +
      `tasks.json, e.g. --from .taskmaster/tasks/tasks.json (got "${from}").`,
  );
}

function fromBacklog(dir: string, roles: Record<string, string>): ImportedBoard {
  const folder = backlogFolder(dir);
  const shownDir = (name: string) => path.join(dir, folder, name);
  const names = markdownFiles(shownDir('tasks'));
  if (names === undefined)
    throw new InputError(
      `${shownDir('tasks')}: no such folder, so ${dir === '.' ? 'this folder' : dir} is no Backlog.md project. ` +
        'Run init --from backlog in the project folder (the one holding backlog/), or make one: backlog init.',
    );
  const tasks: BacklogTask[] = names.map((name) => {
    const file = `${folder}/tasks/${name}`;
    const read = readBacklogTask(file, readRegular(path.join(dir, file), file, { maxBytes: HEAD_BYTES }) ?? '');
    if (!read.ok) throw new InputError(fromDir(dir, read.message));
    return read.task;
  });
  const completed = (markdownFiles(shownDir('completed')) ?? []).flatMap((name) => {
    const file = `${folder}/completed/${name}`;
    const read = readBacklogTask(file, readRegular(path.join(dir, file), file, { maxBytes: HEAD_BYTES }) ?? '');
    return read.ok ? [read.task.key] : [];
  });
  const configFile = [`${folder}/config.yml`, 'backlog.config.yml'].find((name) => existsSync(path.join(dir, name)));
  const doneStatus = doneStatusOf(configFile && readRegular(path.join(dir, configFile), configFile));
  const plan = planBacklog(folder, tasks, completed, doneStatus);
  if (!plan.ok) throw new InputError(fromDir(dir, plan.message));
  const kanban = boardYaml(
    [
      `# A board over the Backlog.md project here (init --from backlog): tasks: lists ${folder}/tasks/ files as`,
      `# they are, in dependency order, then ordinal; the ${doneStatus} ones were left out. The supervisor never`,
      `# writes them: the Manager marks a task done with Backlog.md's CLI (backlog task edit ID -s ${doneStatus}).`,
      '# To take in new tasks, run init --from backlog --force again (it rewrites kanban.yaml and roles/).',
    ],
    plan.tasks,
  );
  return {
    files: { 'kanban.yaml': kanban, ...backlogRoles(roles, doneStatus) },
    said:
      `Listed ${plan.tasks.length} Backlog.md task(s) of ${folder}/tasks/ in kanban.yaml, in dependency order ` +
      `(${plan.done} ${doneStatus} left out). They stay Backlog.md's files: the Manager sets a task done to ` +
      `${doneStatus} with \`backlog task edit\`, so Backlog.md's CLI must be on PATH where the board runs.`,
  };
}

// The messages start with a file of the board folder (`backlog/tasks/x.md:3: …`): named from here.
function fromDir(dir: string, message: string): string {
  const colon = message.indexOf(':');
  if (path.normalize(dir) === '.' || colon < 1) return message;
  return `${path.join(dir, message.slice(0, colon))}${message.slice(colon)}`;
}

// Where the project keeps its backlog: backlog.config.yml's backlog_directory, else backlog/ or .backlog/.
function backlogFolder(dir: string): string {
  const root = readRegular(path.join(dir, 'backlog.config.yml'), 'backlog.config.yml');
  const parsed = root === undefined ? undefined : parseYaml(root);
  const named = parsed?.ok ? (parsed.value as { backlog_directory?: unknown } | null)?.backlog_directory : undefined;
  if (typeof named === 'string' && named.trim() !== '' && !path.isAbsolute(named) && !named.split('/').includes('..'))
    return path.posix.normalize(named.trim()).replace(/\/$/, '');
  return ['backlog', '.backlog'].find((name) => existsSync(path.join(dir, name, 'tasks'))) ?? 'backlog';
}

/**
 * The preset's roles, with a Manager that marks a task done through Backlog.md's CLI: the shipped
 * sequential Manager is given `--backlog-done STATUS`; a model Manager is told so in its prompt.
 */
function backlogRoles(roles: Record<string, string>, doneStatus: string): Record<string, string> {
  const manager = roles['roles/manager.md'] ?? '';
  // On the command line itself: a preset's comments name the program too.
  const sequential = /^(command: \[node, "\{\{agents\}\}\/sequential-manager\.js")/m;
  const status = JSON.stringify(doneStatus);
  // The shipped sequential Manager sets a task done itself; a model it asks (after --), or a model
  // Manager alone, is told how in its prompt.
  const flagged = sequential.test(manager)
    ? manager
        .replace(sequential, `$1, --backlog-done, ${status}`)
        .replace(
          /^command:/m,
          `# --backlog-done: the tasks are Backlog.md's; a task done is set ${doneStatus} with Backlog.md's own CLI\n` +
            `# (backlog task edit ID -s ${doneStatus}), and a task whose status is ${doneStatus} counts as done.\n` +
            'command:',
        )
    : manager;
  const asksModel =
    !sequential.test(manager) || /^command: \[node, "\{\{agents\}\}\/sequential-manager\.js", --, /m.test(manager);
  const edited = asksModel
    ? `${flagged
        .replace(
          'by adding `status: done` to its front-matter (between the --- lines).',
          `with Backlog.md's CLI (\`backlog task edit <its id> -s ${doneStatus}\`), not by editing it.`,
        )
        .replace(/\n*$/, '\n')}\n` +
      `The tasks of this board are Backlog.md task files (their front-matter has id: and status:). To mark a ` +
      `task done, run Backlog.md's CLI, \`backlog task edit <its id> -s ${doneStatus}\`, instead of editing the ` +
      `file; a task whose status is ${doneStatus} is done. To add a task, create it with ` +
      `\`backlog task create "Title" -d "What to do"\` and list the file it makes under backlog/tasks/.\n`
    : flagged;
  return { ...roles, 'roles/manager.md': edited };
}

function fromTaskMaster(from: string, roles: Record<string, string>): ImportedBoard {
  // .taskmaster/tasks/tasks.json → .taskmaster/state.json holds the active tag.
  const stateJson = path.join(path.dirname(path.dirname(from)), 'state.json');
  const text = readRegular(from, from, { maxBytes: TASKS_JSON_BYTES });
  if (text === undefined)
    throw new InputError(
      `${from}: no such file. Give the path of task-master's tasks.json, e.g. --from .taskmaster/tasks/tasks.json.`,
    );
  const plan = planTaskMaster({ tasksJson: from, stateJson }, text, readRegular(stateJson, stateJson));
  if (!plan.ok) throw new InputError(plan.message);
  const tasks = plan.files.map((file) => file.name);
  const kanban = boardYaml(
    [
      `# A board from task-master's ${from}, tag ${plan.tag} (init --from): its tasks still to do, written once`,
      "# as tasks/*.md in dependency order. They are this board's now: tasks.json is not read or changed again.",
    ],
    tasks,
  );
  return {
    files: { 'kanban.yaml': kanban, ...Object.fromEntries(plan.files.map((f) => [f.name, f.content])), ...roles },
    said:
      `Wrote ${tasks.length} task(s) of task-master's tag ${plan.tag} as tasks/*.md, in dependency order ` +
      `(${plan.left} done, cancelled or deferred left out); tasks.json is not changed.`,
  };
}

// kanban.yaml for a list of tasks, the first current; paths quoted, as Backlog.md's names hold spaces.
function boardYaml(comment: string[], tasks: readonly string[]): string {
  return [
    ...comment,
    'phase: execute',
    `current: ${JSON.stringify(tasks[0])}`,
    'tasks:',
    ...tasks.map((task) => `  - ${JSON.stringify(task)}`),
    'supervisor:',
    '  max_retries: 3',
    '  timeout: 30m',
    '',
  ].join('\n');
}

// The visible Markdown files of a folder, in name order; undefined when it is no folder.
function markdownFiles(folder: string): string[] | undefined {
  try {
    return readdirSync(folder, { withFileTypes: true })
      .filter((entry) => entry.isFile() && entry.name.endsWith('.md') && !entry.name.startsWith('.'))
      .map((entry) => entry.name)
      .sort();
  } catch {
    return undefined;
  }
}
