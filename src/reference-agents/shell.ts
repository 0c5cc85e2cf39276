#!/usr/bin/env node
/**
 * Reference worker agent: runs the first ```sh block of its task file in the board
 * folder, appends the output to the task's work log, and replies ok or error. Given an
 * instruction and no task (`kanban-supervisor try Implementor --instruction …`), it runs the
 * instruction's ```sh block, or the whole instruction, and logs nowhere.
 * Needs no network and no API key, so boards can be tried and tested anywhere.
 */
import { spawnSync } from 'node:child_process';
import { appendFileSync, readFileSync } from 'node:fs';
import { readInputs, reply } from './io.js';

const OUTPUT_LIMIT = 20_000;

const inputs = readInputs();
const task = String(inputs.task_file ?? '');
const instruction = typeof inputs.instruction === 'string' ? inputs.instruction : '';
const text = task ? readFileSync(task, 'utf8') : instruction;
const source = task || 'the instruction';
// A fence opens at the start of a line, so prose that mentions ```sh is not mistaken for one.
const script =
  /^```(?:sh|bash|shell)[ \t]*\n([\s\S]*?)^```/m.exec(text)?.[1] ?? (task ? undefined : instruction || undefined);
if (script === undefined) {
  reply({
    status: 'error',
    message: task ? `${task} has no \`\`\`sh block to run` : 'no task_file and no instruction: nothing to run',
  });
} else {
  const started = new Date();
  const run = spawnSync('sh', ['-e', '-c', script], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    maxBuffer: 64 * 1024 * 1024,
  });
  const output = `${run.stdout ?? ''}${run.stderr ?? ''}`;
  const shown = output.length > OUTPUT_LIMIT ? `…${output.slice(-OUTPUT_LIMIT)}` : output;
  const code = run.status ?? `signal ${run.signal ?? '?'}`;
  const heading = /^## Work log$/m.test(text) ? '' : '\n## Work log\n';
  if (task)
    appendFileSync(
      task,
      `${heading}\n### ${started.toISOString()} ${String(inputs.role ?? 'shell agent')}` +
        `\n\n\`\`\`\n${shown}${shown.endsWith('\n') || !shown ? '' : '\n'}\`\`\`\nexit: ${code}\n`,
    );
  const lastLine = output.trim().split('\n').at(-1) ?? '';
  reply(
    run.status === 0
      ? { status: 'ok', message: `ran the sh block of ${source}: ${lastLine}`.trim() }
      : { status: 'error', message: `the sh block of ${source} failed (exit ${code}): ${lastLine}` },
  );
}
