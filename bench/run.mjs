// `npm run bench`: what the supervisor costs beside the agents it runs, each figure printed
// as a ratio against its floor (see README.md here). Not part of `npm test`.
//   node bench/run.mjs [--reps N] [--only 1,2,3,4,5,6,7] [--quick] [--work DIR] [--cli PATH] [--schema-tasks N]
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { historyTools } from './history.mjs';
import { buildAgents } from './lib/agents.mjs';
import { makeBoard, resetBoard } from './lib/boards.mjs';
import { TAG_VARIABLE, workerCall } from './lib/floor.mjs';
import { alternate, median, peakRss, spread } from './lib/measure.mjs';
import { longRun } from './long-run.mjs';
import { cliSchema } from './cli-schema.mjs';
import { managerRuns } from './manager-runs.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const FLOOR = path.join(ROOT, 'bench', 'lib', 'floor.mjs');
const NODE = process.execPath;

const { values: flags } = parseArgs({ options: { reps: { type: 'string' }, only: { type: 'string' }, quick: { type: 'boolean' }, work: { type: 'string' }, cli: { type: 'string' }, 'long-steps': { type: 'string' }, 'long-tasks': { type: 'string' }, 'schema-tasks': { type: 'string' } } });
// Another build's cli.js can be measured the same way (an older commit's, to compare).
const CLI = path.resolve(flags.cli ?? path.join(ROOT, 'dist', 'cli.js'));
// Where the scratch boards go: the supervisor writes a few files a step (attempt logs, the
// board), so a run can be pointed at another file system to compare.
const WORK = path.resolve(flags.work ?? path.join(ROOT, 'bench', '.work'));
const quick = flags.quick === true;
const only = new Set((flags.only ?? '1,2,3,4,5,6,7').split(','));
const reps = (normal) => Number(flags.reps ?? (quick ? Math.max(3, Math.round(normal / 3)) : normal));

const agents = buildAgents(path.join(WORK, 'bin'));
const results = {};
console.log(`kanban-supervisor ${version()} benchmark · node ${process.version} · ${cpus().length} CPUs · load ${load()}`);
console.log(`${agents.built}; supervisor ${CLI}; boards in ${WORK}\n`);

// The code figures read src/ of this checkout (not --cli's); they run unless --only leaves them out.
if (flags.only === undefined || only.has('code')) results.code = codeFigures();
if (only.has('1')) results.overhead = await perStepOverhead();
if (only.has('2')) results.longRun = await longRun({ work: WORK, cli: CLI, node: NODE, agents, steps: Number(flags['long-steps'] ?? (quick ? 2_000 : 20_000)), sizes: (flags['long-tasks'] ?? '10,10000').split(',').map(Number) });
if (only.has('3')) results.startup = await startUp();
if (only.has('4')) results.memory = await memory();
if (only.has('5')) results.history = await historyTools({ work: WORK, cli: CLI, node: NODE, rounds: reps(5) });
if (only.has('6')) results.cliSchema = await cliSchema({ work: WORK, cli: CLI, node: NODE, tasks: Number(flags['schema-tasks'] ?? (quick ? 8 : 20)) });
if (only.has('7')) results.managerRuns = await managerRuns({ work: WORK, cli: CLI, node: NODE, tasks: 20 });
console.log(`\nload at the end: ${load()} (figures taken under load are noisier; the ratios less so)`);
writeFileSync(path.join(WORK, 'last-results.json'), `${JSON.stringify({ time: new Date().toISOString(), cli: CLI, load: loadavg(), results }, null, 2)}\n`);

// In a process of its own: the TypeScript parser it loads would make this one, which starts
// every measured process, larger (a fork copies the page tables of the whole process).
function codeFigures() {
  const out = path.join(WORK, 'code-figures.json');
  execFileSync(NODE, [path.join(ROOT, 'bench', 'code-figures.mjs'), '--json', out], { stdio: ['ignore', 'inherit', 'inherit'] });
  return JSON.parse(readFileSync(out, 'utf8'));
}

/**
 * Part 1: a step of the supervisor against a step of the floor (lib/floor.mjs) on a 200-task
 * board. Each runs a short and a long run in every round; a step costs the difference over
 * the steps between them, so start-up, the checks before the first step and the exit cancel
 * out. Figures are per round, then median (min–max) over the rounds.
 */
async function perStepOverhead() {
  const tasks = 200;
  const [short, long] = quick ? [10, 110] : [20, 220];
  const steps = long - short;
  const rounds = reps(7);
  console.log(`1. Per step against the floor SPEC imposes: ${tasks} tasks, runs of ${long} and of ${short} steps, ${rounds} alternating rounds`);
  const boards = Object.fromEntries(
    [short, long].map((count) => {
      const dir = path.join(WORK, `steps-${count}`);
      const file = makeBoard(dir, { tasks, steps: count, worker: agents.worker, manager: agents.manager });
      // A build from before the Manager's `history` input (src/manager-history/, now src/events/step-history.ts) gets none from the floor either.
      const history = existsSync(path.join(path.dirname(CLI), 'manager-history')) || existsSync(path.join(path.dirname(CLI), 'events', 'step-history.js'));
      return [count, { dir, file, count, config: { mode: 'steps', dir, worker: agents.worker, manager: agents.manager, tasks, steps: count, history } }];
    }),
  );
  sameSpawns(boards[long].file, boards[long].config);
  const kinds = {
    supervisor: (b) => [NODE, CLI, 'run', b.file, '--quiet'],
    floor: (b) => [NODE, FLOOR, JSON.stringify(b.config)],
    'floor without the /proc scan': (b) => [NODE, FLOOR, JSON.stringify({ ...b.config, sweep: false })],
  };
  const candidates = Object.entries(kinds).flatMap(([kind, argv]) =>
    Object.values(boards).map((b) => ({ name: `${kind} ${b.count}`, argv: argv(b), cpu: agents.cpuTimer, before: () => resetBoard(b.file), after: () => ranAll(b) })),
  );
  const raw = await alternate(rounds, candidates, progress('part 1', rounds));
  progress('part 1', rounds)(null);
  const perStep = (kind, key) => raw[`${kind} ${long}`].map((r, i) => (r[key] - raw[`${kind} ${short}`][i][key]) / steps);
  const out = { tasks, steps: [short, long], rounds, kinds: {} };
  for (const kind of Object.keys(kinds)) {
    out.kinds[kind] = { wallMs: spread(perStep(kind, 'ms')), cpuMs: spread(perStep(kind, 'cpuMs')), wholeRunMs: spread(raw[`${kind} ${long}`].map((r) => r.ms)) };
    const k = out.kinds[kind];
    console.log(`   ${kind.padEnd(29)} ${range(k.wallMs, micros)}/step · CPU ${range(k.cpuMs, micros)}/step (agents included)`);
  }
  const ratio = (a, b, key) => spread(perStep(a, key).map((x, i) => x / perStep(b, key)[i]));
  out.ratio = ratio('supervisor', 'floor', 'ms');
  out.ratioCpu = ratio('supervisor', 'floor', 'cpuMs');
  out.ratioNoScan = ratio('supervisor', 'floor without the /proc scan', 'ms');
  out.wholeRunRatio = spread(raw[`supervisor ${long}`].map((r, i) => r.ms / raw[`floor ${long}`][i].ms));
  console.log(`   supervisor / floor, per step: ${range(out.ratio, times)} ${goal(out.ratio.median <= 1.5, 'goal <= 1.5x')}; CPU ${range(out.ratioCpu, times)}`);
  console.log(`   supervisor / floor without the /proc scan, per step: ${range(out.ratioNoScan, times)}`);
  console.log(`   whole runs of ${long} steps, start-up included: supervisor ${seconds(out.kinds.supervisor.wholeRunMs.median)} · floor ${seconds(out.kinds.floor.wholeRunMs.median)} · ${range(out.wholeRunRatio, times)}\n`);
  return out;

  function ranAll(board) {
    const count = Number(readFileSync(path.join(board.dir, 'bench-count'), 'utf8'));
    if (count !== board.count) throw new Error(`${board.dir}: the Manager ran ${count} times, not ${board.count}`);
  }
}

// The floor is only fair if it spawns what the supervisor spawns: the worker's spawn is
// compared with --dry-run; its agents are tagged under the variable this build tags them
// with; and over a short run of each, the Manager's inputs (with their growing history) must
// be as long, step by step, within 2%.
function sameSpawns(file, config) {
  const plan = JSON.parse(execFileSync(NODE, [CLI, 'run', file, '--dry-run', '--json'], { encoding: 'utf8' })).next;
  const call = workerCall(config, plan.task);
  const differs = JSON.stringify(plan.argv) !== JSON.stringify(call.argv) || plan.stdin !== call.stdin || Object.entries(plan.env).some(([key, value]) => call.env[key] !== value);
  if (differs) throw new Error(`the floor's worker spawn differs from the supervisor's: ${JSON.stringify({ plan, call })}`);
  const tag = path.join(path.dirname(CLI), 'agent', 'tag.js');
  if (existsSync(tag) && !readFileSync(tag, 'utf8').includes(`'${TAG_VARIABLE}'`)) throw new Error(`${tag} does not tag agents with ${TAG_VARIABLE}, as the floor does`);
  const dir = path.join(WORK, 'same-inputs');
  const steps = 60;
  const board = makeBoard(dir, { tasks: config.tasks, steps, worker: agents.worker, manager: agents.manager, sizes: true });
  const sizes = (argv) => {
    resetBoard(board);
    execFileSync(argv[0], argv.slice(1), { stdio: 'ignore' });
    return readFileSync(path.join(dir, 'bench-sizes'), 'utf8').trim().split('\n').map(Number);
  };
  const supervisor = sizes([NODE, CLI, 'run', board, '--quiet']);
  const floor = sizes([NODE, FLOOR, JSON.stringify({ ...config, dir, steps, sizes: true })]);
  const off = supervisor.findIndex((bytes, i) => Math.abs(bytes - floor[i]) > 0.02 * bytes);
  if (supervisor.length !== steps || floor.length !== steps || off !== -1) throw new Error(`the Manager's input differs in length between the supervisor and the floor (step ${off + 1}: ${supervisor[off]} against ${floor[off]} bytes)`);
}

/**
 * Part 3: start-up against `node -e 0`: `--version`, `run` on a finished board, and the
 * commands a person types on a small board (6 tasks, one to run): `status`, `validate` and
 * `run --dry-run`, which read the board and answer. Every round runs each command twice: plain
 * for its wall time, and under GNU time for its CPU time. Ratios are taken round by round.
 */
async function startUp() {
  const rounds = reps(21);
  const doneFile = makeBoard(path.join(WORK, 'finished'), { tasks: 3, steps: 1, worker: agents.worker, manager: agents.manager, finished: true });
  const small = makeBoard(path.join(WORK, 'small'), { tasks: 6, steps: 1, worker: agents.worker, manager: agents.manager });
  console.log(`3. Start-up: ${rounds} alternating rounds, against \`node -e 0\` (medians, min–max)`);
  const commands = [
    { name: 'node -e 0', argv: [NODE, '-e', '0'] },
    { name: 'kanban-supervisor --version', argv: [NODE, CLI, '--version'] },
    { name: 'run on a finished board', argv: [NODE, CLI, 'run', doneFile, '--quiet'], before: () => resetBoard(doneFile) },
    { name: 'status, 6 tasks', argv: [NODE, CLI, 'status', small] },
    { name: 'validate, 6 tasks', argv: [NODE, CLI, 'validate', small] },
    { name: 'run --dry-run, 6 tasks', argv: [NODE, CLI, 'run', small, '--dry-run'] },
  ];
  const raw = await alternate(rounds, commands.flatMap((c) => [c, { ...c, name: `${c.name} (cpu)`, cpu: agents.cpuTimer }]), progress('part 3', rounds));
  progress('part 3', rounds)(null);
  const out = {};
  for (const { name } of commands) {
    const wall = raw[name].map((r) => r.ms);
    const cpu = raw[`${name} (cpu)`].map((r) => r.cpuMs);
    const ratio = spread(wall.map((ms, i) => ms / raw['node -e 0'][i].ms));
    const cpuRatio = spread(cpu.map((ms, i) => ms / raw['node -e 0 (cpu)'][i].cpuMs));
    out[name] = { wallMs: spread(wall), cpuMs: spread(cpu), ratio, cpuRatio };
    const vs = name === 'node -e 0' ? '' : `  ${range(ratio, times)} ${goal(ratio.median <= 2, 'goal <= 2x')} · CPU ${range(cpuRatio, times)}`;
    console.log(`   ${name.padEnd(28)} ${range(spread(wall), (ms) => `${ms.toFixed(1)} ms`)} · CPU ${median(cpu).toFixed(0)} ms${vs}`);
  }
  if (out['run on a finished board'].ratio.median > 2) console.log('   (what loads at start-up and what it costs: node bench/startup-modules.mjs)');
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
  const peak = spread(runs.supervisor.map((r) => r.bytes));
  console.log(`   supervisor peak RSS ${range(peak, mb)} ${goal(peak.max < 150e6, 'goal < 150 MB')}`);
  console.log(`   against: \`node -e 0\` ${mb(m(runs.idle, 'bytes'))} (${(peak.median / m(runs.idle, 'bytes')).toFixed(2)}x); the floor streaming the same output to a file ${mb(m(runs.bare, 'bytes'))} (${(peak.median / m(runs.bare, 'bytes')).toFixed(2)}x)`);
  const sup = m(runs.supervisor, 'ms');
  const bare = m(runs.bare, 'ms');
  console.log(`   time: supervisor ${seconds(sup)} (${((bytes / 1e6) / (sup / 1000)).toFixed(0)} MB/s) · the floor ${seconds(bare)} · ratio ${(sup / bare).toFixed(2)}`);
  console.log(`   (peak RSS from ${source})`);
  return { peakBytes: peak.median, worstBytes: peak.max, idleBytes: m(runs.idle, 'bytes'), bareBytes: m(runs.bare, 'bytes'), supervisorMs: sup, bareMs: bare };
}

// A round counter on a terminal, so a long run shows it is alive; `null` clears it.
function progress(name, rounds) {
  return (round) => {
    if (process.stdout.isTTY) process.stdout.write(round === null ? '\r\x1b[K' : `\r\x1b[K   ${name}: round ${round}/${rounds}`);
  };
}

function range(s, fmt) {
  return `${fmt(s.median)} (${fmt(s.min)}–${fmt(s.max)})`;
}

function times(x) {
  return `${x.toFixed(2)}x`;
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
