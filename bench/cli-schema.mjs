// Part 6 of `npm run bench`: what handing the CLI the reply schema saves (issue 28). Boards made by
// `init --agent claude|codex`, with the presets' `cli_schema: true` and without it, run through the
// real Claude Code and Codex (test/clis/node_modules) against the fake model server, whose model
// answers off-format 30% of the time (seeded): CLI processes spawned and model input tokens per
// completed task. Needs `npm ci --prefix test/clis` (npm run test:clis does it); skipped without.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startFakeModelServer } from '../test/fixtures/fake-model-server.mjs';
import { readEvents } from './lib/boards.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = path.join(ROOT, 'test', 'clis', 'node_modules', '.bin');
const OFF_FORMAT = 0.3;
const SEED = 28;
const GOAL = 1.05;

/**
 * Run each preset with and without its schema flags on a board of `tasks` tasks; returns the
 * figures by preset and mode. A completed task is one agent's valid reply (a worker's or the
 * Manager's): the unit a format retry repeats.
 */
export async function cliSchema({ work, cli, node, tasks }) {
  console.log(`6. The reply schema handed to the CLI (cli_schema): ${tasks} tasks a board, a model off-format ${OFF_FORMAT * 100}% of the time (seed ${SEED})`);
  const missing = ['claude', 'codex'].filter((name) => !existsSync(path.join(BIN, name)));
  if (missing.length) {
    console.log(`   skipped: ${missing.join(', ')} not installed (run: npm ci --prefix test/clis)\n`);
    return { skipped: missing };
  }
  const out = {};
  for (const agent of ['claude', 'codex']) {
    for (const schema of [true, false]) {
      const figures = await measure({ work, cli, node, tasks, agent, schema });
      out[`${agent}${schema ? '' : ' without'}`] = figures;
      const goal = schema ? ` (goal ≤ ${GOAL}: ${figures.runsPerTask <= GOAL ? 'met' : 'missed'})` : '';
      console.log(
        `   ${agent.padEnd(6)} ${schema ? 'cli_schema: true ' : 'cli_schema: false'}  ${figures.runsPerTask.toFixed(2)} CLI runs a completed task${goal}, ` +
          `${Math.round(figures.inputPerTask).toLocaleString('en')} input tokens a completed task, ${figures.requestsPerTask.toFixed(2)} model requests; ` +
          `${figures.completed} tasks in ${figures.runs} runs, exit ${figures.exitCode}, ${(figures.ms / 1000).toFixed(0)} s`,
      );
    }
  }
  console.log('');
  return out;
}

async function measure({ work, cli, node, tasks, agent, schema }) {
  const dir = path.join(work, `schema-${agent}-${schema ? 'on' : 'off'}`);
  rmSync(dir, { recursive: true, force: true });
  const server = await startFakeModelServer({ mode: 'reply', text: offFormatModel(random(SEED), path.join(dir, 'board')), usage: { input: 'request' } });
  try {
    const env = agentEnv(agent, server.url, dir);
    await run(node, [cli, 'init', path.join(dir, 'board'), '--agent', agent], env, work);
    const board = path.join(dir, 'board');
    writeBoard(board, tasks, schema);
    const started = Date.now();
    const exitCode = await run(node, [cli, 'kanban.yaml', '--quiet', '--timeout', '2m'], env, board);
    const finished = readEvents(board).filter((e) => e.type === 'attempt_finished');
    const completed = finished.filter((e) => e.valid).length;
    const input = finished.reduce((sum, e) => sum + (e.usage?.inputTokens ?? 0), 0);
    const requests = server.requests.filter((r) => /^POST \/v1\/(messages|responses)/.test(r)).length;
    return {
      completed,
      runs: finished.length,
      runsPerTask: finished.length / completed,
      inputPerTask: input / completed,
      requestsPerTask: requests / completed,
      exitCode,
      ms: Date.now() - started,
    };
  } finally {
    await server.close();
  }
}

// The preset board with `tasks` tasks, retries enough that no task runs out of them, and the
// presets' cli_schema line taken out for the runs without.
function writeBoard(board, tasks, schema) {
  const names = Array.from({ length: tasks }, (_, i) => `tasks/${String(i + 1).padStart(3, '0')}.md`);
  for (const name of names) writeFileSync(path.join(board, name), '---\ntitle: A task\n---\nDo it and say so.\n');
  writeFileSync(
    path.join(board, 'kanban.yaml'),
    `phase: execute\ncurrent: ${names[0]}\ntasks:\n${names.map((n) => `  - ${n}\n`).join('')}supervisor:\n  max_retries: 20\n  max_steps: ${tasks + 5}\n`,
  );
  if (schema) return;
  for (const role of ['implementor', 'manager', 'architect']) {
    const file = path.join(board, 'roles', `${role}.md`);
    writeFileSync(file, readFileSync(file, 'utf8').replace(/^cli_schema: true\n/m, ''));
  }
}

const PROSE = 'I looked at the task and did what I could. There is nothing structured to report.';
const ROLE = /You are the (Manager|Implementor|Architect)\b/;

/**
 * A model that follows the presets' prompts but answers off-format 30% of the time, half of those
 * in prose and half with a reply whose status is not one of the four. Under Codex's schema the API
 * holds every answer to it (constrained decoding): it is always in format. Claude Code's schema is
 * a tool the model may still not call, or call with a wrong reply: it asks again within its run.
 */
function offFormatModel(next, board) {
  return ({ body }) => {
    const prompt = strings(body).find((s) => ROLE.test(s)) ?? '';
    const role = ROLE.exec(prompt)?.[1] ?? 'Implementor';
    const reply = role === 'Manager' ? managerReply(prompt, board) : { status: 'ok', message: 'Done, and logged.' };
    const draw = next();
    if (body?.text?.format?.type !== 'json_schema' && draw < OFF_FORMAT)
      return draw < OFF_FORMAT / 2 ? PROSE : `Here it is: ${JSON.stringify({ ...reply, status: 'done' })}`;
    return `Done.\n\n\`\`\`json\n${JSON.stringify(reply)}\n\`\`\`\n`;
  };
}

// The next task after the one just done, from the task list the Manager's prompt shows (before
// issue 34) or kanban.yaml's (the prompt names it: the model reads it there).
function managerReply(prompt, board) {
  const shown = /^Task list, in order: (.*)$/m.exec(prompt)?.[1];
  const tasks = shown ? JSON.parse(shown) : boardTasks(board);
  const done = /^Task just worked on: (.*)$/m.exec(prompt)?.[1] ?? '';
  const next = tasks[tasks.indexOf(done) + 1] ?? null;
  return { status: 'ok', message: `next: ${next}`, next_task: next, tasks, ...(next === null && { phase: 'complete' }) };
}

/** The task list of the board's kanban.yaml (one `  - path` line each, as the benchmarks write it). */
export function boardTasks(board) {
  return [...readFileSync(path.join(board, 'kanban.yaml'), 'utf8').matchAll(/^ {2}- (\S+)$/gm)].map((m) => m[1]);
}

export function strings(value) {
  if (typeof value === 'string') return [value];
  if (value && typeof value === 'object') return Object.values(value).flatMap(strings);
  return [];
}

// mulberry32: the same draws on every run of the benchmark.
function random(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// A clean environment pointing the CLI at the fake server, as test/clis/harness.ts does.
export function agentEnv(agent, url, dir) {
  const home = path.join(dir, 'home');
  mkdirSync(home, { recursive: true });
  const env = { PATH: [BIN, path.dirname(process.execPath), '/usr/local/bin', '/usr/bin', '/bin'].join(':'), HOME: home, LANG: 'C.UTF-8', NO_COLOR: '1' };
  if (agent === 'claude') return { ...env, ANTHROPIC_BASE_URL: url, CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', ANTHROPIC_API_KEY: 'sk-fake' };
  mkdirSync(path.join(home, '.codex'), { recursive: true });
  writeFileSync(
    path.join(home, '.codex', 'config.toml'),
    ['model_provider = "fake"', 'check_for_update_on_startup = false', '[analytics]', 'enabled = false', '[features]', 'plugins = false', 'remote_plugin = false', 'apps = false', '[model_providers.fake]', 'name = "fake"', `base_url = "${url}/v1"`, 'env_key = "OPENAI_API_KEY"', 'wire_api = "responses"', 'supports_websockets = false', ''].join('\n'),
  );
  return { ...env, OPENAI_API_KEY: 'sk-fake' };
}

export function run(node, args, env, cwd) {
  return new Promise((resolve, reject) => {
    const child = spawn(node, args, { cwd, env, stdio: ['ignore', 'ignore', 'inherit'] });
    child.on('error', reject);
    child.on('exit', (code) => resolve(code));
  });
}
