// `npm run bench`: what the supervisor costs beside the agents it runs, each figure printed
// as a ratio against its floor (see README.md here). Not part of `npm test`.
//   node bench/run.mjs [--reps N] [--only 1,2,3,4,5] [--quick] [--work DIR] [--cli PATH]
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { historyTools } from './history.mjs';
import { buildAgents } from './lib/agents.mjs';
import { makeBoard, resetBoard } from './lib/boards.mjs';
import { workerCall } from './lib/floor.mjs';
import { alternate, median, peakRss } from './lib/measure.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const FLOOR = path.join(ROOT, 'bench', 'lib', 'floor.mjs');
const NODE = process.execPath;

const { values: flags } = parseArgs({ options: { reps: { type: 'string' }, only: { type: 'string' }, quick: { type: 'boolean' }, work: { type: 'string' }, cli: { type: 'string' } } });
// Another build's cli.js can be measured the same way (an older commit's, to compare).
const CLI = path.resolve(flags.cli ?? path.join(ROOT, 'dist', 'cli.js'));
// Where the scratch boards go: the supervisor writes a few files a step (attempt logs, the
// board), so a run can be pointed at another file system to compare.
const WORK = path.resolve(flags.work ?? path.join(ROOT, 'bench', '.work'));
const quick = flags.quick === true;
const only = new Set((flags.only ?? '1,2,3,4,5').split(','));
const reps = (normal) => Number(flags.reps ?? (quick ? Math.max(3, Math.round(normal / 3)) : normal));

const agents = buildAgents(path.join(WORK, 'bin'));
const results = {};
console.log(`kanban-supervisor ${version()} benchmark · node ${process.version} · ${cpus().length} CPUs · load ${load()}`);
console.log(`${agents.built}; supervisor ${CLI}; boards in ${WORK}\n`);

if (only.has('1')) results.overhead = await perStepOverhead();
if (only.has('2')) results.scaling = await boardSizeScaling();
if (only.has('3')) results.startup = await startUp();
if (only.has('4')) results.memory = await memory();
if (only.has('5')) results.history = await historyTools({ work: WORK, cli: CLI, node: NODE, rounds: reps(5) });
console.log(`\nload at the end: ${load()} (figures taken under load are noisier; the ratios less so)`);
writeFileSync(path.join(WORK, 'last-results.json'), `${JSON.stringify({ time: new Date().toISOString(), cli: CLI, load: loadavg(), results }, null, 2)}\n`);

async function perStepOverhead() {
  const tasks = 200;
  const steps = 200;
  const rounds = reps(7);
  console.log(`1. Per-step overhead: ${tasks} tasks, ${steps} steps, ${rounds} alternating runs (medians)`);
  const { times, perStep } = await stepsAgainstFloor('overhead', tasks, steps, rounds, true);
  const ratio = times.supervisor / times.bare;
  console.log(`   supervisor ${seconds(times.supervisor)} · bare loop ${seconds(times.bare)} · ratio ${ratio.toFixed(2)} ${goal(ratio <= 1.5, 'goal <= 1.5')}`);
  console.log(`   overhead ${micros((times.supervisor - times.bare) / steps)}/step over the whole run; ${micros(perStep)}/step with start-up excluded`);
  console.log(`   (the bare loop's step, two spawns and two parses: ${micros((times.bare - times.bareStart) / steps)})\n`);
  return { ratio, wholeRunMicros: (1000 * (times.supervisor - times.bare)) / steps, perStepMicros: perStep * 1000, times };
}

async function boardSizeScaling() {
  const steps = quick ? 20 : 50;
  const rounds = reps(5);
  console.log(`2. Board-size scaling: ${steps} steps on each board, ${rounds} alternating runs (medians), start-up excluded`);
  const out = {};
  for (const tasks of [10, 1_000, 10_000]) {
    const { perStep } = await stepsAgainstFloor(`scale-${tasks}`, tasks, steps, rounds, false);
    out[tasks] = perStep * 1000;
    const vs = tasks === 10 ? '' : ` · ${(perStep / (out[10] / 1000)).toFixed(2)}x the 10-task one${tasks === 10_000 ? ` ${goal(perStep / (out[10] / 1000) <= 2, 'goal <= 2x')}` : ''}`;
    console.log(`   ${tasks.toLocaleString('en').padStart(6)} tasks  overhead ${micros(perStep).padStart(10)}/step${vs}`);
  }
  console.log('');
  return out;
}

/**
 * Run a board of `tasks` tasks for `steps` steps under the supervisor and under the bare
 * loop, plus each one's start-up alone (a finished board, a loop of no steps), alternating.
 * Per-step overhead = ((supervisor - its start-up) - (bare - its start-up)) / steps, in ms.
 */
async function stepsAgainstFloor(name, tasks, steps, rounds, checkFairness) {
  const dir = path.join(WORK, name);
  const file = makeBoard(dir, { tasks, steps, worker: agents.worker, manager: agents.manager });
  const doneDir = path.join(WORK, `${name}-finished`);
  const doneFile = makeBoard(doneDir, { tasks, steps, worker: agents.worker, manager: agents.manager, finished: true });
  const config = { mode: 'steps', dir, worker: agents.worker, manager: agents.manager, tasks, steps };
  if (checkFairness) sameSpawns(file, config);
  const ranAll = () => {
    const count = Number(readFileSync(path.join(dir, 'bench-count'), 'utf8'));
    if (count !== steps) throw new Error(`${name}: the Manager ran ${count} times, not ${steps}`);
  };
  const raw = await alternate(
    rounds,
    [
      { name: 'supervisor', argv: [NODE, CLI, 'run', file, '--quiet'], before: () => resetBoard(file), after: ranAll },
      { name: 'bare', argv: [NODE, FLOOR, JSON.stringify(config)], before: () => resetBoard(file), after: ranAll },
      { name: 'supervisorStart', argv: [NODE, CLI, 'run', doneFile, '--quiet'], before: () => resetBoard(doneFile) },
      { name: 'bareStart', argv: [NODE, FLOOR, JSON.stringify({ ...config, steps: 0 })] },
    ],
    progress(name, rounds),
  );
  progress(name, rounds)(null);
  const times = Object.fromEntries(Object.entries(raw).map(([key, list]) => [key, median(list)]));
  return { times, perStep: (times.supervisor - times.supervisorStart - (times.bare - times.bareStart)) / steps };
}

// The floor is only fair if it spawns what the supervisor spawns: compare with --dry-run.
function sameSpawns(file, config) {
  const plan = JSON.parse(execFileSync(NODE, [CLI, 'run', file, '--dry-run', '--json'], { encoding: 'utf8' })).next;
  const call = workerCall(config, plan.task);
  const differs = JSON.stringify(plan.argv) !== JSON.stringify(call.argv) || plan.stdin !== call.stdin || Object.entries(plan.env).some(([key, value]) => call.env[key] !== value);
  if (differs) throw new Error(`the bare loop's worker spawn differs from the supervisor's: ${JSON.stringify({ plan, call })}`);
}

async function startUp() {
  const rounds = reps(21);
  const doneFile = makeBoard(path.join(WORK, 'finished'), { tasks: 3, steps: 1, worker: agents.worker, manager: agents.manager, finished: true });
  console.log(`3. Start-up: ${rounds} alternating runs (medians), against \`node -e 0\``);
  const raw = await alternate(rounds, [
    { name: 'node -e 0', argv: [NODE, '-e', '0'] },
    { name: 'kanban-supervisor --version', argv: [NODE, CLI, '--version'] },
    { name: 'run on a finished board', argv: [NODE, CLI, 'run', doneFile, '--quiet'], before: () => resetBoard(doneFile) },
  ]);
  const floor = median(raw['node -e 0']);
  const out = {};
  for (const [name, list] of Object.entries(raw)) {
    const ms = median(list);
    out[name] = ms;
    const ratio = ms / floor;
    console.log(`   ${name.padEnd(28)} ${`${ms.toFixed(1)} ms`.padStart(9)}${name === 'node -e 0' ? '' : `  ${ratio.toFixed(2)}x ${goal(ratio <= 2, 'goal <= 2x')}`}`);
  }
  console.log('');
  return out;
}

async function memory() {
  const bytes = 1_000_000_000;
  const rounds = reps(3);
  const dir = path.join(WORK, 'memory');
  const env = { BENCH_BYTES: String(bytes) };
  const file = makeBoard(dir, { tasks: 1, steps: 1, worker: agents.spew, manager: agents.manager, env });
  const config = { mode: 'stream', dir, worker: agents.spew, manager: agents.manager, tasks: 1, steps: 1, workerEnv: env };
  console.log(`4. Memory: an agent prints ${(bytes / 1e9).toFixed(0)} GB before its reply, ${rounds} alternating runs (medians)`);
  const runs = { supervisor: [], bare: [], idle: [] };
  let source = '';
  for (let round = 0; round < rounds; round++) {
    resetBoard(file);
    const sup = await peakRss([NODE, CLI, 'run', file, '--quiet']);
    resetBoard(file);
    const bare = await peakRss([NODE, FLOOR, JSON.stringify(config)]);
    const idle = await peakRss([NODE, '-e', '0']);
    runs.supervisor.push(sup);
    runs.bare.push(bare);
    runs.idle.push(idle);
    source = sup.source;
  }
  const m = (list, key) => median(list.map((r) => r[key]));
  const peak = m(runs.supervisor, 'bytes');
  const worst = Math.max(...runs.supervisor.map((r) => r.bytes));
  console.log(`   supervisor peak RSS ${mb(peak)} (worst ${mb(worst)}) ${goal(worst < 150e6, 'goal < 150 MB')}`);
  console.log(`   floors: \`node -e 0\` ${mb(m(runs.idle, 'bytes'))} (${(peak / m(runs.idle, 'bytes')).toFixed(2)}x); bare loop streaming the same output to a file ${mb(m(runs.bare, 'bytes'))} (${(peak / m(runs.bare, 'bytes')).toFixed(2)}x)`);
  const sup = m(runs.supervisor, 'ms');
  const bare = m(runs.bare, 'ms');
  console.log(`   time: supervisor ${seconds(sup)} (${((bytes / 1e6) / (sup / 1000)).toFixed(0)} MB/s) · bare loop ${seconds(bare)} · ratio ${(sup / bare).toFixed(2)}`);
  console.log(`   (peak RSS from ${source})`);
  return { peakBytes: peak, worstBytes: worst, idleBytes: m(runs.idle, 'bytes'), bareBytes: m(runs.bare, 'bytes'), supervisorMs: sup, bareMs: bare };
}

// A round counter on a terminal, so a long run shows it is alive; `null` clears it.
function progress(name, rounds) {
  return (round) => {
    if (process.stdout.isTTY) process.stdout.write(round === null ? '\r\x1b[K' : `\r\x1b[K   ${name}: round ${round}/${rounds}`);
  };
}

function goal(met, text) {
  return `(${text}: ${met ? 'met' : 'MISSED'})`;
}

function seconds(ms) {
  return `${(ms / 1000).toFixed(3)} s`;
}

function micros(ms) {
  return `${Math.round(ms * 1000).toLocaleString('en')} µs`;
}

function mb(bytes) {
  return `${(bytes / 1e6).toFixed(1)} MB`;
}

function load() {
  return loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
}

function version() {
  return JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version;
}
