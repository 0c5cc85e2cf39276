// A synthesized event history for part 5 of the benchmark (and the tests of status and report
// on a long history). Also runnable alone, to write a history to look at:
//   node bench/lib/history-synth.mjs DIR [--tasks N] [--events N]
import { closeSync, mkdirSync, openSync, readdirSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { taskPath } from './boards.mjs';

/**
 * Write a board of `tasks` tasks whose `.kanban-supervisor/events.jsonl` holds about `events`
 * events shaped as the supervisor writes them: ~24 runs ending every way a run ends (done,
 * retries exhausted, halted for a person, interrupted, killed with no end), worker attempts
 * with retries and timeouts, a Manager turn each step. The sequential Manager goes round
 * tasks 1..N-1; task N was added later and never ran, so `status` has a task to look for to
 * its bound. Deterministic (a fixed seed); returns kanban.yaml's path and the counts written.
 */
export function synthesize(dir, { tasks, events: target, seed = 1 }) {
  const random = mulberry32(seed);
  writeBoard(dir, tasks);
  const state = path.join(dir, '.kanban-supervisor');
  rmSync(state, { recursive: true, force: true });
  mkdirSync(state);
  const out = bufferedWriter(path.join(state, 'events.jsonl'));
  let clock = Date.parse('2026-01-05T08:00:00.000Z');
  let written = 0;
  let cursor = 0;
  let runs = 0;
  const endings = ['done', 'interrupted', 'retries', 'killed', 'human', 'done', 'retries', 'interrupted'];
  while (written < target) {
    runs++;
    const budget = Math.min(target - written, Math.round((target / 24) * (0.4 + 1.2 * random())));
    const ending = written + budget >= target ? 'retries' : endings[runs % endings.length];
    const pid = 20_000 + Math.floor(random() * 40_000);
    const run = `${new Date(clock).toISOString().replace(/[:.]/g, '-')}-${pid}`;
    const emit = (type, fields = {}) => {
      out.write(`${JSON.stringify({ time: new Date(clock).toISOString(), type, run, ...fields })}\n`);
      written++;
      clock += 3 + Math.floor(random() * 40);
    };
    emit('run_started', { board: 'kanban.yaml', pid });
    const advance = (ms) => (clock += ms);
    const startedAt = written;
    let step = 0;
    for (;;) {
      step++;
      const task = taskPath((cursor % Math.max(1, tasks - 1)) + 1);
      const last = written - startedAt >= budget - 12;
      emit('step_started', { step, role: 'Implementor', task, phase: 'execute' });
      const exhausted = last && ending === 'retries';
      const ok = agentTurn({ emit, advance, random }, { step, role: 'Implementor', task, run, exhausted, command: 'claude -p --output-format json --permission-mode acceptEdits' });
      if (!ok) break;
      agentTurn({ emit, advance, random }, { step, role: 'Manager', task: `kanban.yaml (done_task: ${task})`, run, exhausted: false, command: 'claude -p --output-format json --model sonnet' });
      emit('board_written', { step, task, written: true, current: taskPath(((cursor + 1) % Math.max(1, tasks - 1)) + 1), tasks });
      cursor++;
      if (!last) continue;
      if (ending === 'done') emit('done', { steps: step, phase: 'complete' });
      if (ending === 'interrupted') emit('interrupted', { steps: step, exitCode: 130, reason: 'InterruptedError', message: 'Interrupted by SIGINT: the running agent and its children were stopped. The board is unchanged; run again to resume at the current task.' });
      if (ending === 'human') emit('halted', { steps: step, exitCode: 4, reason: 'HaltedForHumanError', message: `The Manager halted for a person (status blocked) after ${task}: the API spec needs a decision on pagination — see the task's work log` });
      break;
    }
    clock += 3_600_000 * (1 + Math.floor(random() * 20));
  }
  out.close();
  return { file: path.join(dir, 'kanban.yaml'), events: written, runs, bytes: out.bytes() };
}

// One agent's attempts for a step: retries on ~8% invalid replies (some of them timeouts);
// `exhausted` makes every attempt invalid and ends with the halt. Returns whether it replied.
function agentTurn({ emit, advance, random }, { step, role, task, run, exhausted, command }) {
  const of = 4;
  for (let attempt = 1; attempt <= of; attempt++) {
    const where = { step, role, task, attempt };
    emit('attempt_started', { ...where, of, command, timeoutMs: 1_800_000 });
    const valid = !exhausted && random() > 0.08;
    const timeout = !valid && random() < 0.25;
    const base = `.kanban-supervisor/runs/${run}/${String(step).padStart(4, '0')}-${role.toLowerCase()}-${attempt}`;
    const durationMs = timeout ? 1_800_000 : 15_000 + Math.floor(random() * 240_000);
    advance(durationMs);
    const issue = timeout ? 'timed out after 30m and was killed with SIGTERM' : 'printed no JSON reply object (tried the whole stdout, known agent wrappers, the last ```json block and the last JSON line)';
    emit('attempt_finished', {
      ...where,
      end: timeout ? 'timeout' : 'exited',
      exitCode: timeout ? null : 0,
      signal: timeout ? 'SIGTERM' : null,
      killedWith: timeout ? 'SIGTERM' : null,
      durationMs,
      stdoutBytes: 2_000 + Math.floor(random() * 60_000),
      valid,
      ...(valid ? { via: 'wrapper:claude', status: 'ok' } : { issue }),
      stdoutFile: `${base}.out`,
      stderrFile: `${base}.err`,
    });
    if (valid) return true;
    const full = `Invalid output format: ${role} (${command.slice(0, 40)}…) ${issue}`;
    if (attempt < of) emit('retry', { ...where, retry: attempt, maxRetries: of - 1, issue: full });
    else emit('halted', { ...where, exitCode: 3, reason: 'retries_exhausted', issue: full });
  }
  return false;
}

function writeBoard(dir, tasks) {
  const taskDir = path.join(dir, 'tasks');
  mkdirSync(taskDir, { recursive: true });
  if (readdirSync(taskDir).length !== tasks) {
    rmSync(taskDir, { recursive: true, force: true });
    mkdirSync(taskDir);
    for (let i = 1; i <= tasks; i++) writeFileSync(path.join(dir, taskPath(i)), `---\ntitle: Task ${i}\n---\nNothing to do.\n`);
  }
  const lines = ['phase: execute', `current: ${taskPath(tasks)}`, 'tasks:', ...Array.from({ length: tasks }, (_, i) => `  - ${taskPath(i + 1)}`), ''];
  writeFileSync(path.join(dir, 'kanban.yaml'), lines.join('\n'));
}

// Lines gathered into 4 MiB writes: a million small writes would take longer than the runs.
function bufferedWriter(file) {
  const fd = openSync(file, 'w');
  let pending = [];
  let size = 0;
  let total = 0;
  const flush = () => {
    const chunk = Buffer.from(pending.join(''));
    writeSync(fd, chunk);
    total += chunk.length;
    pending = [];
    size = 0;
  };
  return {
    write(text) {
      pending.push(text);
      size += text.length;
      if (size > 4 << 20) flush();
    },
    close() {
      flush();
      closeSync(fd);
    },
    bytes: () => total,
  };
}

// A small seeded generator, so every run of the benchmark measures the same history.
function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values, positionals } = parseArgs({ options: { tasks: { type: 'string' }, events: { type: 'string' } }, allowPositionals: true });
  const made = synthesize(path.resolve(positionals[0] ?? 'bench/.work/history'), { tasks: Number(values.tasks ?? 10), events: Number(values.events ?? 1_000_000) });
  console.log(`${made.file}: ${made.events.toLocaleString('en')} events in ${made.runs} runs, ${(made.bytes / 2 ** 20).toFixed(0)} MiB`);
}
