#!/usr/bin/env node
/**
 * Reference Manager: marks the done task `status: done` in its front-matter and picks the first
 * task in the list not yet done. A worker's reply that is not ok needs judgment:
 *
 *   sequential-manager.js                      escalate: the run halts for a person (exit 4)
 *   sequential-manager.js --park               set the task aside in kanban.yaml's `parked:` (park.ts)
 *                                              and go on; halt only when nothing else is left
 *   sequential-manager.js -- CLI …             ask the model: run CLI … with this program's stdin
 *                                              (the role's prompt) and its answer is the Manager's;
 *                                              the model's prompt says how to park a task
 *
 * So a model is called only when a reply is not ok; an ok reply costs no model run. After a
 * periodic role (`trigger`) it keeps `current` as the board has it, and asks the model (or
 * escalates) if that role's reply was not ok. It does not read `history`. With `--backlog-done STATUS`
 * (what `init --from backlog` writes) the tasks are Backlog.md's: a task is set done with Backlog.md's
 * CLI, and STATUS counts as done.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { replaceFileAtomic } from '../fs/replace.js';
import { editYamlFields } from '../board/edit.js';
import { parseYaml } from '../board/yaml.js';
import { parseFrontMatter } from '../board/front-matter.js';
import { reply } from './io.js';
import { parkedList, type ParkedTask } from '../board/parked.js';
import { chooseNext, park } from './park.js';
import { backlogDoneStatus, isBacklogDone, markDoneInBacklog } from './backlog-done.js';

const USAGE = 'usage: sequential-manager.js [--backlog-done STATUS] [--park | -- MODEL-CLI ARG…]';
const argv = process.argv.slice(2);
const cut = argv.indexOf('--');
const options = cut < 0 ? argv : argv.slice(0, cut);
const model = cut < 0 ? [] : argv.slice(cut + 1);
const backlogDone = backlogDoneStatus(options);
const unknown = options.find(
  (option, at) => option !== '--park' && option !== '--backlog-done' && options[at - 1] !== '--backlog-done',
);
if (unknown !== undefined || (cut >= 0 && model.length === 0)) {
  process.stderr.write(`sequential-manager.js: ${unknown ? `unknown option ${unknown}` : 'no command after --'}\n`);
  process.stderr.write(`${USAGE}\n`);
  process.exit(2);
}
const parking = options.includes('--park');
if (parking && model.length > 0) {
  // Not both: with a model, the model decides what a reply that is not ok means (its prompt says how to park).
  process.stderr.write('sequential-manager.js: --park and a model CLI after --: give one (the model can park)\n');
  process.stderr.write(`${USAGE}\n`);
  process.exit(2);
}

// The inputs: KANBAN_INPUT, else stdin as JSON. With a model, stdin is the model's prompt and is kept whole for it.
const stdin = readFileSync(0);
const inputs = readInputs();
if (inputs === undefined) askModel('its inputs (KANBAN_INPUT) were too long to read here');
else decide(inputs);

function decide(inputs: Record<string, unknown>): void {
  const board = String(inputs.kanban_file ?? 'kanban.yaml');
  // A board that is not there (moved away during the step) is the supervisor's to report, not a crash here.
  const text = readText(board);
  const parsed = parseYaml(text ?? '');
  const value = parsed.ok ? parsed.value : null;
  // On a board too large for KANBAN_INPUT the list is read where it is: kanban.yaml, as the step read it.
  const tasks = (inputs.tasks as string[] | undefined) ?? listed(value);
  const done = String(inputs.done_task ?? inputs.task_file ?? '');
  const result = (inputs.result as { status?: string; message?: string } | undefined) ?? { status: 'ok' };
  const trigger = typeof inputs.trigger === 'string' ? inputs.trigger : undefined;
  const ok = result.status === 'ok';
  const said = `${String(result.status)}: ${String(result.message ?? '')}`;
  if (!ok && model.length > 0) return askModel(`${trigger ?? done} replied ${String(result.status)}`);
  if (trigger !== undefined) {
    const current = currentTask(value, tasks);
    return reply({
      status: ok ? 'ok' : 'escalate',
      message: ok
        ? `${trigger} replied ok; ${current ?? 'no task'} stays current`
        : `${trigger} ended with status ${said}. Read it, act on it, then edit the board to carry on.`,
      next_task: current,
      tasks,
    });
  }
  if (!ok && !parking)
    return reply({
      status: 'escalate',
      message: `${done} ended with status ${said}. Look at its work log, fix it, then run again.`,
      next_task: done,
      tasks,
    });
  // A Backlog.md task is set done with Backlog.md's CLI before the next is chosen (a failure to is a person's to fix).
  const unmarked = ok && done && backlogDone !== undefined ? markDoneInBacklog(done, backlogDone) : undefined;
  if (unmarked !== undefined)
    return reply({
      status: 'escalate',
      message:
        `${done} replied ok, but ${unmarked}. Set it ${backlogDone ?? ''} ` +
        `yourself (backlog task edit ID -s ${backlogDone ?? ''}) or fix that, then run again.`,
      next_task: done,
      tasks,
    });
  if (ok && done && backlogDone === undefined) markDone(done);
  const before = parkedList(value);
  const aside = ok ? before : park(before, done, String(result.status), String(result.message ?? ''));
  const choice = chooseNext(tasks, isDone, aside);
  if (text !== undefined && value !== null && (choice.parked.length > 0 || 'parked' in (value as object)))
    recordParked(board, text, choice.parked);
  const what = ok ? `${done} is done` : `${done} is set aside (${said})`;
  if (choice.halt)
    return reply({ status: 'escalate', message: `${what}. ${choice.halt}`, next_task: choice.next, tasks });
  reply({
    status: 'ok',
    message: choice.next ? `${what}; next is ${choice.next}` : `${what}; every task is done`,
    next_task: choice.next,
    tasks,
    ...(choice.next === null && { phase: 'complete' }),
  });
}

function readInputs(): Record<string, unknown> | undefined {
  const text = process.env.KANBAN_INPUT ?? (model.length > 0 ? undefined : stdin.toString('utf8'));
  if (text === undefined) return undefined;
  const value = JSON.parse(text) as unknown;
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
}

// The model's run is this Manager's run: its output goes straight to the supervisor, which reads the
// reply, spend and usage limits from it as from the CLI itself; its exit is this program's exit.
function askModel(why: string): void {
  if (model.length === 0) {
    process.stderr.write(`sequential-manager.js: ${why}, and no model CLI is given after --\n`);
    process.exit(2);
  }
  const [file, ...args] = model as [string, ...string[]];
  process.stderr.write(`sequential-manager.js: ${why}: asking the model (${path.basename(file)})\n`);
  const run = spawnSync(file, args, { input: stdin, stdio: ['pipe', 'inherit', 'inherit'] });
  if (run.error) {
    process.stderr.write(`sequential-manager.js: cannot run ${file}: ${run.error.message}\n`);
    process.exit(127);
  }
  if (run.signal) process.kill(process.pid, run.signal);
  process.exit(run.status ?? 1);
}

function readText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

function listed(board: unknown): string[] {
  const tasks = (board as { tasks?: unknown } | null)?.tasks;
  return Array.isArray(tasks) ? tasks.filter((task): task is string => typeof task === 'string') : [];
}

// The board's current task as it is now (one of `tasks`, or null).
function currentTask(board: unknown, tasks: readonly string[]): string | null {
  const current = (board as { current?: unknown } | null)?.current;
  return typeof current === 'string' && tasks.includes(current) ? current : null;
}

// Written before the reply, atomically; the supervisor then writes the answer into this text,
// keeping the list (it changes only current, tasks and phase).
function recordParked(board: string, text: string, parked: ParkedTask[]): void {
  const next = editYamlFields(text, { parked });
  if (next !== text) replaceFileAtomic(process.cwd(), board, next);
}

function isDone(task: string): boolean {
  try {
    if (backlogDone !== undefined) return isBacklogDone(task, backlogDone);
    const parsed = parseFrontMatter(readFileSync(task, 'utf8'));
    return parsed.ok && parsed.data.status === 'done';
  } catch {
    return false; // a listed task file that is gone is the supervisor's to report when it comes up
  }
}

function markDone(task: string): void {
  const parsed = parseFrontMatter(readFileSync(task, 'utf8'));
  if (!parsed.ok) return; // the supervisor refuses such a task before it runs
  const yaml = parsed.present ? editYamlFields(parsed.raw, { status: 'done' }) : 'status: done\n';
  // Atomic, so a Manager killed mid-write (Ctrl-C, timeout, kill -9) never leaves half a task file.
  // Run by root on a person's board, tasks/ is the person's: walked as theirs (fs/real-dir.ts).
  const text = `---\n${yaml}${yaml.endsWith('\n') ? '' : '\n'}---\n${parsed.body}`;
  replaceFileAtomic(process.cwd(), task, text, { ownersFolders: true });
}
