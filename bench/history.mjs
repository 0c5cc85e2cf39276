// Part 5 of `npm run bench`: `status` and `report` on a synthesized 1,000,000-event history
// (lib/history-synth.mjs), on a 10-task and a 10,000-task board: wall time and peak RSS of
// each command, against `node -e 0` and against `status` on the same board with no history.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { synthesize } from './lib/history-synth.mjs';
import { median } from './lib/measure.mjs';

const EVENTS = 1_000_000;
const STATUS_GOAL = { ms: 300, bytes: 150e6 };

/**
 * Measure the history tools of the build `cli` on boards under `work`, `rounds` alternating
 * runs each (report --all, the slowest, a third as often). Returns the medians by board size.
 */
export async function historyTools({ work, cli, node, rounds }) {
  const hasAll = execFileSync(node, [cli, 'report', '--help'], { encoding: 'utf8' }).includes('--all');
  console.log(`5. History tools: status and report on a synthesized ${EVENTS.toLocaleString('en')}-event history, ${rounds} alternating runs (medians)`);
  if (!hasAll) console.log('   (this build has no report --all: its report covers every run)');
  const out = {};
  for (const tasks of [10, 10_000]) {
    const board = prepare(path.join(work, `history-${tasks}`), tasks);
    console.log(`   ${tasks.toLocaleString('en')} tasks · events.jsonl ${(board.bytes / 2 ** 20).toFixed(0)} MiB, ${board.runs} runs`);
    const candidates = [
      { name: 'node -e 0', argv: [node, '-e', '0'] },
      { name: 'status, no history', argv: [node, cli, 'status', board.file], bare: true },
      { name: 'status', argv: [node, cli, 'status', board.file], goal: STATUS_GOAL },
      { name: hasAll ? 'report (last 10 runs)' : 'report (every run)', argv: [node, cli, 'report', board.file, '--out', path.join(board.dir, 'report.html')], page: path.join(board.dir, 'report.html') },
      ...(hasAll ? [{ name: 'report --all', argv: [node, cli, 'report', board.file, '--all', '--out', path.join(board.dir, 'all.html')], page: path.join(board.dir, 'all.html'), every: 3 }] : []),
    ];
    out[tasks] = await measure(candidates, rounds, board);
  }
  console.log('');
  return out;
}

async function measure(candidates, rounds, board) {
  const runs = Object.fromEntries(candidates.map((c) => [c.name, []]));
  for (let round = 0; round < rounds; round++) {
    for (const c of round % 2 ? [...candidates].reverse() : candidates) {
      if (c.every && round % c.every !== 0) continue;
      runs[c.name].push(await (c.bare ? withoutHistory(board, () => timeAndRss(c.argv)) : timeAndRss(c.argv)));
    }
  }
  const out = {};
  const floor = median(runs['node -e 0'].map((r) => r.ms));
  for (const c of candidates) {
    const ms = median(runs[c.name].map((r) => r.ms));
    const cpuMs = median(runs[c.name].map((r) => r.cpuMs));
    const bytes = median(runs[c.name].map((r) => r.bytes));
    out[c.name] = { ms, cpuMs, bytes, ...(c.page && { pageBytes: statSync(c.page).size }) };
    const ratio = c.name === 'node -e 0' ? '' : `${(ms / floor).toFixed(1)}x`.padStart(7);
    const goal = c.goal ? ` (goal <= ${c.goal.ms} ms and <= ${c.goal.bytes / 1e6} MB: ${ms <= c.goal.ms && bytes <= c.goal.bytes ? 'met' : 'MISSED'})` : '';
    const page = c.page ? ` · ${(statSync(c.page).size / 1e6).toFixed(0)} MB of HTML` : '';
    console.log(`     ${c.name.padEnd(24)} ${duration(ms).padStart(9)}${ratio} (cpu ${duration(cpuMs)}) ${`${(bytes / 1e6).toFixed(1)} MB`.padStart(10)} peak RSS${goal}${page}`);
  }
  return out;
}

// The history is set aside while `status` runs on the bare board: what reading the board and
// its task files costs, which the history reading comes on top of.
async function withoutHistory(board, run) {
  const aside = `${board.events}.aside`;
  renameSync(board.events, aside);
  try {
    return await run();
  } finally {
    renameSync(aside, board.events);
  }
}

// Wall time, CPU time (user + system: on a busy machine the steadier figure) and peak RSS,
// from GNU time, as part 4 takes its RSS.
function timeAndRss(argv) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn('/usr/bin/time', ['-f', '%U %S %M', ...argv], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = performance.now() - started;
      const [user, system, kib] = stderr.trim().split('\n').at(-1).split(' ').map(Number);
      if (code !== 0 || !Number.isFinite(kib)) reject(new Error(`${argv.join(' ')} exited ${code}: ${stderr.trim()}`));
      else resolve({ ms, cpuMs: (user + system) * 1000, bytes: kib * 1024 });
    });
  });
}

// Synthesizing takes ~10 s a board: a board already made the same way is kept.
function prepare(dir, tasks) {
  const marker = path.join(dir, 'bench-history.json');
  const events = path.join(dir, '.kanban-supervisor', 'events.jsonl');
  const wanted = JSON.stringify({ tasks, events: EVENTS, synth: statSync(new URL('./lib/history-synth.mjs', import.meta.url)).mtimeMs });
  let made;
  if (existsSync(marker) && existsSync(events) && JSON.parse(readFileSync(marker, 'utf8')).wanted === wanted) made = JSON.parse(readFileSync(marker, 'utf8')).made;
  else {
    rmSync(marker, { force: true });
    made = synthesize(dir, { tasks, events: EVENTS });
    writeFileSync(marker, JSON.stringify({ wanted, made }));
  }
  return { dir, file: path.join(dir, 'kanban.yaml'), events, bytes: made.bytes, runs: made.runs };
}

function duration(ms) {
  return ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(0)} ms`;
}
