// The floor each supervisor figure is held against: a bare Node loop that makes the same
// spawns as the supervisor, with the same argv, stdin bytes, environment and working
// directory, and parses the replies. Nothing else: no board, no checks, no logs.
//   node floor.mjs '<json config>'   (see FloorConfig below)
import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { WORKER_PROMPT, managerEnv, taskPath } from './boards.mjs';

/**
 * @typedef {object} FloorConfig
 * @property {'steps' | 'stream'} mode  steps: run the worker and Manager until next_task is null;
 *   stream: run the worker once, its stdout to a file as the supervisor does, and parse the reply at its end
 * @property {string} dir     the board folder (the agents' cwd)
 * @property {string[]} worker
 * @property {string[]} manager
 * @property {number} tasks
 * @property {number} steps
 * @property {Record<string, string>} [workerEnv]
 */

/** The worker's spawn for a task, as the supervisor makes it (README, "Role files"). */
export function workerCall(config, task) {
  const inputs = { role: 'Implementor', kanban_file: 'kanban.yaml', task_file: task };
  return { argv: config.worker, stdin: WORKER_PROMPT.replace('{{task_file}}', task), env: agentEnv(inputs, JSON.stringify(inputs), config.workerEnv ?? {}) };
}

/** The Manager's spawn after a task, with the worker's reply as `result`. */
export function managerCall(config, task, tasks, result) {
  const inputs = { role: 'Manager', kanban_file: 'kanban.yaml', done_task: task, tasks, result };
  const json = JSON.stringify(inputs);
  return { argv: config.manager, stdin: `${json}\n`, env: agentEnv(inputs, json, managerEnv(config.tasks, config.steps)) };
}

function agentEnv(inputs, json, roleEnv) {
  const env = { ...process.env, ...roleEnv, KANBAN_ROLE: inputs.role, KANBAN_FILE: inputs.kanban_file, KANBAN_TASK_FILE: inputs.task_file ?? '', KANBAN_DONE_TASK: inputs.done_task ?? '' };
  if (json.length <= 64 * 1024) env.KANBAN_INPUT = json;
  else delete env.KANBAN_INPUT;
  return env;
}

function run(dir, call, sink) {
  return new Promise((resolve, reject) => {
    const [file, ...args] = call.argv;
    const child = spawn(file, args, { cwd: dir, env: call.env, stdio: ['pipe', 'pipe', 'pipe'] });
    let kept = [];
    child.stdout.on('data', (chunk) => {
      // Streaming mode keeps only the latest chunks: enough for a reply on the last line.
      kept = sink ? [kept.at(-1), chunk].filter(Boolean) : [...kept, chunk];
    });
    if (sink) child.stdout.pipe(sink);
    child.stderr.resume();
    child.stdin.on('error', () => {});
    child.stdin.end(call.stdin);
    child.on('error', reject);
    child.on('close', () => {
      const text = Buffer.concat(kept).toString('utf8').trimEnd();
      resolve(JSON.parse(text.slice(text.lastIndexOf('\n') + 1)));
    });
  });
}

async function main(config) {
  if (config.mode === 'stream') {
    const sink = createWriteStream(path.join(config.dir, 'out.log'));
    await run(config.dir, workerCall(config, taskPath(1)), sink);
    return;
  }
  let tasks = Array.from({ length: config.tasks }, (_, i) => taskPath(i + 1));
  let current = tasks[0];
  for (let step = 0; step < config.steps && current !== null; step++) {
    const result = await run(config.dir, workerCall(config, current));
    const answer = await run(config.dir, managerCall(config, current, tasks, result));
    current = answer.next_task;
    tasks = answer.tasks;
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main(JSON.parse(process.argv[2] ?? '{}'));
