#!/usr/bin/env node
/**
 * Reference Manager: marks the done task `status: done` in its front-matter and picks
 * the first task in the list not yet done. When the worker's reply was not ok it
 * escalates and keeps that task current, so the run halts for a person (exit 4).
 */
import { readFileSync } from 'node:fs';
import { replaceFileAtomic } from '../fs/replace.js';
import { editYamlFields } from '../board/edit.js';
import { parseFrontMatter } from '../util/front-matter.js';
import { readInputs, reply } from './io.js';

const inputs = readInputs();
const tasks = (inputs.tasks as string[] | undefined) ?? [];
const done = String(inputs.done_task ?? inputs.task_file ?? '');
const result = (inputs.result as { status?: string; message?: string } | undefined) ?? { status: 'ok' };

if (result.status !== 'ok') {
  reply({
    status: 'escalate',
    message: `${done} ended with status ${String(result.status)}: ${String(result.message ?? '')}. Look at its work log, fix it, then run again.`,
    next_task: done,
    tasks,
  });
} else {
  if (done) markDone(done);
  const next = tasks.find((task) => !isDone(task)) ?? null;
  reply({
    status: 'ok',
    message: next ? `${done} is done; next is ${next}` : `${done} is done; every task is done`,
    next_task: next,
    tasks,
    ...(next === null && { phase: 'complete' }),
  });
}

function isDone(task: string): boolean {
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
