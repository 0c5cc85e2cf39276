// Part 7 of `npm run bench`: the model runs a Manager costs (issue 34). A board made by
// `init --agent claude` with 20 tasks whose every reply is ok, run through the real Claude Code
// (test/clis/node_modules) against the fake model server: with the Manager as on 4617305 (Claude
// Code on every step, the task list in its prompt) and as `init` makes it now (the shipped
// sequential Manager, asking Claude Code only for a reply that is not ok). Counted: Claude Code
// processes started (a shim before it on PATH), and the model input tokens the runs report, per
// completed task. Then a board whose worker replies blocked: its Manager's model is still asked.
// Needs `node test/clis/ensure.mjs`; skipped without.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startFakeModelServer } from '../test/fixtures/fake-model-server.mjs';
import { readEvents } from './lib/boards.mjs';
import { agentEnv, boardTasks, run, strings } from './cli-schema.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = path.join(ROOT, 'test', 'clis', 'node_modules', '.bin');
const BEFORE = '4617305';
const GOAL = 1.1;
const ROLE = /You are the (Manager|Implementor|Architect)\b/;

/** The figures before and after, and the blocked board's. */
export async function managerRuns({ work, cli, node, tasks }) {
  console.log(`7. Model runs of the Manager (init --agent claude): ${tasks} tasks, every reply ok`);
  if (!existsSync(path.join(BIN, 'claude'))) {
    console.log('   skipped: claude not installed (run: node test/clis/ensure.mjs)\n');
    return { skipped: ['claude'] };
  }
  const before = git(['show', `${BEFORE}:presets/claude/manager.md`]);
  const out = {};
  for (const [name, manager] of [[`before (${BEFORE})`, before], ['after', undefined]]) {
    const figures = await measure({ work, cli, node, tasks, name, manager });
    out[name] = figures;
    const goal = manager ? '' : ` (goal ≤ ${GOAL}: ${figures.runsPerTask <= GOAL ? 'met' : 'missed'})`;
    console.log(
      `   ${name.padEnd(17)} ${figures.runsPerTask.toFixed(2)} Claude Code runs a completed task${goal}, ` +
        `${Math.round(figures.inputPerTask).toLocaleString('en')} model input tokens a completed task ` +
        `(Manager ${Math.round(figures.managerInputPerTask).toLocaleString('en')}); ` +
        `${figures.completed} tasks, ${figures.runs} runs, exit ${figures.exitCode}, ${(figures.ms / 1000).toFixed(0)} s`,
    );
  }
  const blocked = await measure({ work, cli, node, tasks: 3, name: 'blocked', blocked: 'tasks/002.md' });
  out.blocked = blocked;
  console.log(
    `   a worker replying blocked on tasks/002.md of 3: the Manager's model was asked ${blocked.managerRuns} time(s) ` +
      `(goal ≥ 1: ${blocked.managerRuns >= 1 ? 'met' : 'missed'}), exit ${blocked.exitCode}\n`,
  );
  return out;
}

async function measure({ work, cli, node, tasks, name, manager, blocked }) {
  const dir = path.join(work, `manager-${name.split(' ')[0]}`);
  rmSync(dir, { recursive: true, force: true });
  const board = path.join(dir, 'board');
  const server = await startFakeModelServer({ mode: 'reply', text: model(board, blocked), usage: { input: 'request' } });
  try {
    const env = agentEnv('claude', server.url, dir);
    const count = path.join(dir, 'claude-runs');
    env.PATH = `${shim(dir, count)}:${env.PATH}`;
    await run(node, [cli, 'init', board, '--agent', 'claude'], env, work);
    writeBoard(board, tasks);
    if (manager) writeFileSync(path.join(board, 'roles', 'manager.md'), manager);
    const started = Date.now();
    const exitCode = await run(node, [cli, 'kanban.yaml', '--quiet', '--timeout', '2m'], env, board);
    const finished = readEvents(board).filter((e) => e.type === 'attempt_finished');
    const completed = finished.filter((e) => e.role !== 'Manager' && e.valid).length;
    const input = (list) => list.reduce((sum, e) => sum + (e.usage?.inputTokens ?? 0), 0);
    const managers = finished.filter((e) => e.role === 'Manager');
    const runs = existsSync(count) ? readFileSync(count, 'utf8').split('\n').filter(Boolean).length : 0;
    return {
      completed,
      runs,
      runsPerTask: runs / completed,
      inputPerTask: input(finished) / completed,
      managerInputPerTask: input(managers) / completed,
      managerRuns: managers.filter((e) => e.usage).length,
      exitCode,
      ms: Date.now() - started,
    };
  } finally {
    await server.close();
  }
}

// `claude` on PATH before the real one: notes each run, then is the real one.
function shim(dir, count) {
  const folder = path.join(dir, 'shim');
  mkdirSync(folder, { recursive: true });
  const file = path.join(folder, 'claude');
  writeFileSync(file, `#!/bin/sh\necho run >> '${count}'\nexec '${path.join(BIN, 'claude')}' "$@"\n`);
  chmodSync(file, 0o755);
  return folder;
}

function writeBoard(board, tasks) {
  const names = Array.from({ length: tasks }, (_, i) => `tasks/${String(i + 1).padStart(3, '0')}.md`);
  for (const name of names) writeFileSync(path.join(board, name), '---\ntitle: A task\n---\nDo it and say so.\n');
  writeFileSync(
    path.join(board, 'kanban.yaml'),
    `phase: execute\ncurrent: ${names[0]}\ntasks:\n${names.map((n) => `  - ${n}\n`).join('')}supervisor:\n  max_steps: ${tasks + 5}\n`,
  );
}

// A model following the presets' prompts: a worker does its task (blocked on `blocked`); the Manager
// names the next task, and escalates a blocked reply to a person.
function model(board, blocked) {
  return ({ body }) => {
    const prompt = strings(body).find((s) => ROLE.test(s)) ?? '';
    const role = ROLE.exec(prompt)?.[1] ?? 'Implementor';
    if (role !== 'Manager') {
      const task = /described in (\S+?)[.:]?\s/.exec(prompt)?.[1] ?? '?';
      const reply =
        task === blocked ? { status: 'blocked', message: 'Which port should it listen on?' } : { status: 'ok', message: 'Done, and logged.' };
      return `Done.\n\n\`\`\`json\n${JSON.stringify(reply)}\n\`\`\`\n`;
    }
    const shown = /^Task list, in order: (.*)$/m.exec(prompt)?.[1];
    const tasks = shown ? JSON.parse(shown) : boardTasks(board);
    const done = /^Task just worked on: (.*)$/m.exec(prompt)?.[1] ?? '';
    const next = tasks[tasks.indexOf(done) + 1] ?? null;
    const reply = /"status":\s*"blocked"/.test(prompt)
      ? { status: 'escalate', message: `${done} needs a person: which port?`, next_task: done, tasks }
      : { status: 'ok', message: `next: ${next}`, next_task: next, tasks, ...(next === null && { phase: 'complete' }) };
    return `Decided.\n\n\`\`\`json\n${JSON.stringify(reply)}\n\`\`\`\n`;
  };
}

function git(args) {
  return execFileSync('git', ['-C', ROOT, ...args], { encoding: 'utf8' });
}
