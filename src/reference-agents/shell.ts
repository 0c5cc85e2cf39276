#!/usr/bin/env node
/**
 * Reference worker agent: runs the first ```sh block of its task file in the board
 * folder, appends the output to the task's work log, and replies ok or error.
 * Needs no network and no API key, so boards can be tried and tested anywhere.
 */
import { spawnSync } from 'node:child_process';
import { appendFileSync, readFileSync } from 'node:fs';
import { readInputs, reply } from './io.js';

const OUTPUT_LIMIT = 20_000;

const inputs = readInputs();
const task = String(inputs.task_file ?? '');
const text = readFileSync(task, 'utf8');
// A fence opens at the start of a line, so prose that mentions ```sh is not mistaken for one.
const script = /^```(?:sh|bash|shell)[ \t]*\n([\s\S]*?)^```/m.exec(text)?.[1];
if (script === undefined) {
  reply({ status: 'error', message: `${task} has no \`\`\`sh block to run` });
} else {
  const started = new Date();
  const run = spawnSync('sh', ['-e', '-c', script], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 * 1024 * 1024 });
  const output = `${run.stdout ?? ''}${run.stderr ?? ''}`;
  const shown = output.length > OUTPUT_LIMIT ? `…${output.slice(-OUTPUT_LIMIT)}` : output;
  const code = run.status ?? `signal ${run.signal ?? '?'}`;
  const heading = /^## Work log$/m.test(text) ? '' : '\n## Work log\n';
  appendFileSync(task, `${heading}\n### ${started.toISOString()} ${String(inputs.role ?? 'shell agent')}\n\n\`\`\`\n${shown}${shown.endsWith('\n') || !shown ? '' : '\n'}\`\`\`\nexit: ${code}\n`);
  const lastLine = output.trim().split('\n').at(-1) ?? '';
  reply(run.status === 0 ? { status: 'ok', message: `ran the sh block of ${task}: ${lastLine}`.trim() } : { status: 'error', message: `the sh block of ${task} failed (exit ${code}): ${lastLine}` });
}
