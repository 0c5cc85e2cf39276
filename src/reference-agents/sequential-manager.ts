#!/usr/bin/env node
/**
 * Reference Manager: marks the done task `status: done` in its front-matter and picks
 * the first task in the list not yet done. When the worker's reply was not ok it
 * escalates and keeps that task current, so the run halts for a person (exit 4).
 * After a periodic role (`trigger`) it keeps `current` as the board has it, and escalates
 * if that role's reply was not ok. It does not read `history`. With `--backlog-done STATUS` the
 * tasks are Backlog.md's: a task is set done with Backlog.md's CLI, and STATUS counts as done.
 */
import { readFileSync } from 'node:fs';
import { replaceFileAtomic } from '../fs/replace.js';
import { editYamlFields } from '../board/edit.js';
import { parseYaml } from '../board/yaml.js';
import { parseFrontMatter } from '../board/front-matter.js';
import { readInputs, reply } from './io.js';
import { backlogDoneStatus, isBacklogDone, markDoneInBacklog } from './backlog-done.js';

const inputs = readInputs();
const tasks = (inputs.tasks as string[] | undefined) ?? [];
const done = String(inputs.done_task ?? inputs.task_file ?? '');
const result = (inputs.result as { status?: string; message?: string } | undefined) ?? { status: 'ok' };
const trigger = typeof inputs.trigger === 'string' ? inputs.trigger : undefined;
const backlogDone = backlogDoneStatus(process.argv.slice(2));
// A Backlog.md task is set done before the next is chosen (a failure to is a person's to fix).
const unmarked =
  trigger === undefined && result.status === 'ok' && done && backlogDone !== undefined
    ? markDoneInBacklog(done, backlogDone)
    : undefined;

if (trigger !== undefined) {
  const current = currentTask(String(inputs.kanban_file ?? 'kanban.yaml'));
  const ok = result.status === 'ok';
  reply({
    status: ok ? 'ok' : 'escalate',
    message: ok
      ? `${trigger} replied ok; ${current ?? 'no task'} stays current`
      : `${trigger} ended with status ${String(result.status)}: ${String(result.message ?? '')}. ` +
        `Read it, act on it, then edit the board to carry on.`,
    next_task: current,
    tasks,
  });
} else if (result.status !== 'ok') {
  reply({
    status: 'escalate',
    message:
      `${done} ended with status ${String(result.status)}: ${String(result.message ?? '')}. ` +
      `Look at its work log, fix it, then run again.`,
    next_task: done,
    tasks,
  });
} else if (unmarked !== undefined) {
  reply({
    status: 'escalate',
    message:
      `${done} replied ok, but ${unmarked}. Set it ${String(backlogDone)} ` +
      `yourself (backlog task edit ID -s ${String(backlogDone)}) or fix that, then run again.`,
    next_task: done,
    tasks,
  });
} else {
  if (done && backlogDone === undefined) markDone(done);
  const next = tasks.find((task) => !isDone(task)) ?? null;
  reply({
    status: 'ok',
    message: next ? `${done} is done; next is ${next}` : `${done} is done; every task is done`,
    next_task: next,
    tasks,
    ...(next === null && { phase: 'complete' }),
  });
}

// The board's current task as it is now (one of `tasks`, or null).
function currentTask(board: string): string | null {
  const parsed = parseYaml(readFileSync(board, 'utf8'));
  const current = parsed.ok ? (parsed.value as { current?: unknown } | null)?.current : null;
  return typeof current === 'string' && tasks.includes(current) ? current : null;
}

function isDone(task: string): boolean {
  if (backlogDone !== undefined) return isBacklogDone(task, backlogDone);
  const parsed = parseFrontMatter(readFileSync(task, 'utf8'));
  return parsed.ok && parsed.data.status === 'done';
}

function markDone(task: string): void {
  const parsed = parseFrontMatter(readFileSync(task, 'utf8'));
  if (!parsed.ok) return; // the supervisor refuses such a task before it runs
  const yaml = parsed.present ? editYamlFields(parsed.raw, { status: 'done' }) : 'status: done\n';
  // Atomic, so a Manager killed mid-write (Ctrl-C, timeout, kill -9) never leaves half a task file.
  replaceFileAtomic(process.cwd(), task, `---\n${yaml}${yaml.endsWith('\n') ? '' : '\n'}---\n${parsed.body}`);
}
