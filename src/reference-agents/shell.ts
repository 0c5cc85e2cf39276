#!/usr/bin/env node
/**
 * Reference worker agent: runs the first ```sh block of its task file in the board
 * folder, appends the output to the task's work log, and replies ok or error. Given an
 * instruction and no task (`kanban-supervisor try Implementor --instruction …`), it runs the
 * instruction's ```sh block, or the whole instruction, and logs nowhere.
 * Needs no network and no API key, so boards can be tried and tested anywhere.
 */
import { spawn } from 'node:child_process';
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
  const run = await runScript(script);
  const output = run.output;
  const shown = run.cut ? `…${output.slice(-OUTPUT_LIMIT)}` : output;
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

/**
 * Runs the script, passing what it prints on to stderr as it comes (so `logs --follow` and the
 * live line show it while it runs; stdout stays for the reply), and keeps the last of it for the
 * work log and the reply's message.
 */
function runScript(
  code: string,
): Promise<{ output: string; cut: boolean; status: number | null; signal: string | null }> {
  return new Promise((resolve) => {
    const child = spawn('sh', ['-e', '-c', code], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    let cut = false;
    const take = (chunk: Buffer) => {
      process.stderr.write(chunk);
      output += chunk.toString('utf8');
      if (output.length > 2 * OUTPUT_LIMIT) {
        output = output.slice(-OUTPUT_LIMIT);
        cut = true;
      }
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    child.on('error', (error) => resolve({ output: `${output}${error.message}\n`, cut, status: 127, signal: null }));
    child.on('close', (status, signal) =>
      resolve({ output, cut: cut || output.length > OUTPUT_LIMIT, status, signal }),
    );
  });
}
