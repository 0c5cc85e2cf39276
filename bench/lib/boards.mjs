// Scratch boards under bench/.work/: N task files, a worker and a Manager role, and the
// kanban.yaml every run starts from.
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** The board-relative path of task `i` (1-based), as the C Manager expects it. */
export function taskPath(i) {
  return `tasks/t${String(i).padStart(5, '0')}.md`;
}

/** The role body of the benchmark's worker; the floor renders it the same way. */
export const WORKER_PROMPT = 'Do {{task_file}}.\n';

/**
 * Create (or refresh) a board of `tasks` tasks whose Manager ends the run after `steps`
 * steps, and return its kanban.yaml path. `current` is set to null when `finished`; with
 * `times`, the Manager notes the time of each step in bench-times, with `sizes` the length
 * of each input in bench-sizes.
 */
export function makeBoard(dir, { tasks, steps, worker, manager, env = {}, finished = false, times = false, sizes = false }) {
  const taskDir = path.join(dir, 'tasks');
  mkdirSync(taskDir, { recursive: true });
  // Writing 10,000 task files takes a while; a board folder keeps them between runs.
  if (readdirSync(taskDir).length !== tasks) {
    rmSync(taskDir, { recursive: true, force: true });
    mkdirSync(taskDir);
    for (let i = 1; i <= tasks; i++) writeFileSync(path.join(dir, taskPath(i)), `Task ${i}: nothing to do.\n`);
  }
  mkdirSync(path.join(dir, 'roles'), { recursive: true });
  writeFileSync(path.join(dir, 'roles', 'implementor.md'), `---\ncommand: ${JSON.stringify(worker)}\nstdin: prompt\nenv: ${JSON.stringify(env)}\n---\n${WORKER_PROMPT}`);
  writeFileSync(
    path.join(dir, 'roles', 'manager.md'),
    `---\ncommand: ${JSON.stringify(manager)}\nstdin: json\nenv: ${JSON.stringify(managerEnv(tasks, steps, times, sizes))}\n---\nPick the task after {{done_task}}.\n`,
  );
  const lines = ['# benchmark board', 'phase: execute', `current: ${finished ? 'null' : taskPath(1)}`, 'tasks:'];
  for (let i = 1; i <= tasks; i++) lines.push(`  - ${taskPath(i)}`);
  lines.push('supervisor:', '  max_steps: 1000000', '  max_retries: 0', '');
  const template = lines.join('\n');
  const file = path.join(dir, 'kanban.yaml');
  writeFileSync(path.join(dir, 'kanban.template.yaml'), template);
  resetBoard(file);
  return file;
}

/** The environment the benchmark's Manager role sets (the floor passes the same). */
export function managerEnv(tasks, steps, times = false, sizes = false) {
  return { BENCH_TASKS: String(tasks), BENCH_STEPS: String(steps), ...(times && { BENCH_TIMES: '1' }), ...(sizes && { BENCH_SIZES: '1' }) };
}

/** Put a board back to its start: the template kanban.yaml, no run output, no step counter. */
export function resetBoard(file) {
  const dir = path.dirname(file);
  writeFileSync(file, readTemplate(dir));
  for (const leftover of ['.kanban-supervisor', 'supervisor.log.md', 'bench-count', 'bench-times', 'bench-sizes', 'out.log']) rmSync(path.join(dir, leftover), { recursive: true, force: true });
}

function readTemplate(dir) {
  const template = path.join(dir, 'kanban.template.yaml');
  if (!existsSync(template)) throw new Error(`${template} is missing: makeBoard first`);
  return readFileSync(template, 'utf8');
}

/** The events a run of the board recorded, in order (its .kanban-supervisor/events.jsonl). */
export function readEvents(board) {
  return readFileSync(path.join(board, '.kanban-supervisor', 'events.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}
