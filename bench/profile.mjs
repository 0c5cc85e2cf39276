// Where a supervisor step's time goes: the supervisor and the floor (lib/floor.mjs) each run
// a board once under `node --cpu-prof`, and their main threads are compared per step. Time
// in a synchronous system call (fsync, unlink, open) counts as the function that made it;
// time spent waiting for an agent is idle. Prints, per step:
//   - busy time (samples that are not idle) of each, and the difference;
//   - the supervisor's time by package or dist/ file (self time), and by function of its own
//     code and of the few library calls that matter (inclusive time: nested rows overlap).
//   node bench/profile.mjs [--tasks 200] [--steps 200] [--top 30] [--cli dist/cli.js] [--work DIR]
// The .cpuprofile files are kept in <work>/profile-<tasks>/ for Chrome DevTools or speedscope.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { buildAgents } from './lib/agents.mjs';
import { makeBoard, resetBoard } from './lib/boards.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const NODE = process.execPath;
const { values } = parseArgs({ options: { tasks: { type: 'string', default: '200' }, steps: { type: 'string', default: '200' }, top: { type: 'string', default: '30' }, cli: { type: 'string' }, work: { type: 'string' } } });
const CLI = path.resolve(values.cli ?? path.join(ROOT, 'dist', 'cli.js'));
const WORK = path.resolve(values.work ?? path.join(ROOT, 'bench', '.work'));
const tasks = Number(values.tasks);
const steps = Number(values.steps);
const top = Number(values.top);
// Only the supervisor's own functions, and the library entry points it calls, are ranked inclusively.
const LIBRARY = new Set(['execa', 'parseDocument', 'matter', 'spawn', 'fsyncSync', 'renameSync', 'rmSync', 'unlinkSync', 'openSync', 'readFileSync', 'readdirSync', 'writeSync', 'realpathSync', 'lstatSync', 'statSync', 'parse', 'stringify']);

const agents = buildAgents(path.join(WORK, 'bin'));
const dir = path.join(WORK, `profile-${tasks}`);
const file = makeBoard(dir, { tasks, steps, worker: agents.worker, manager: agents.manager });
const config = { mode: 'steps', dir, worker: agents.worker, manager: agents.manager, tasks, steps };
const profiles = {
  supervisor: profileOf('supervisor', [CLI, 'run', file, '--quiet']),
  floor: profileOf('floor', [path.join(ROOT, 'bench', 'lib', 'floor.mjs'), JSON.stringify(config)]),
};

const perStep = (ms) => `${((ms * 1000) / steps).toFixed(0).padStart(6)} µs`;
console.log(`Main-thread time per step, ${tasks} tasks, ${steps} steps (one run each under --cpu-prof; the whole run, start-up included)`);
for (const [name, p] of Object.entries(profiles)) console.log(`  ${name.padEnd(11)} busy ${perStep(p.busy)} · idle (waiting for agents and I/O) ${perStep(p.idle)} · garbage collection ${perStep(p.gc)}`);
console.log(`  supervisor busy time beyond the floor's: ${perStep(profiles.supervisor.busy - profiles.floor.busy)} a step\n`);
console.log('Self time by package or file (per step): supervisor, floor');
for (const [key, ms] of ranked(profiles.supervisor.selfByFile, top)) console.log(`  ${perStep(ms)} ${perStep(profiles.floor.selfByFile.get(key) ?? 0)}  ${key}`);
console.log('\nSupervisor, inclusive time of its own functions and of the library calls it makes (per step; nested rows overlap):');
for (const [key, ms] of ranked(profiles.supervisor.inclusive, top * 2)) console.log(`  ${perStep(ms)}  ${key}`);

function profileOf(name, args) {
  const out = path.join(dir, `${name}-prof`);
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  resetBoard(file);
  execFileSync(NODE, ['--cpu-prof', '--cpu-prof-dir', out, ...args], { cwd: dir, stdio: 'ignore' });
  const count = Number(readFileSync(path.join(dir, 'bench-count'), 'utf8'));
  if (count !== steps) throw new Error(`${name}: the Manager ran ${count} times, not ${steps}`);
  const [profile] = readdirSync(out).filter((f) => f.endsWith('.cpuprofile'));
  return summarize(JSON.parse(readFileSync(path.join(out, profile), 'utf8')));
}

// Self time by file and inclusive time by function, in ms, from a V8 .cpuprofile.
function summarize(profile) {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const child of n.children ?? []) parent.set(child, n.id);
  const self = new Map();
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000));
  const selfByFile = new Map();
  const inclusive = new Map();
  let idle = 0;
  let gc = 0;
  let total = 0;
  for (const [id, ms] of self) {
    const frame = nodes.get(id).callFrame;
    total += ms;
    if (frame.functionName === '(idle)') idle += ms;
    if (frame.functionName === '(garbage collector)') gc += ms;
    add(selfByFile, where(frame) || frame.functionName, ms);
    const seen = new Set();
    for (let at = id; at !== undefined; at = parent.get(at)) {
      const key = label(nodes.get(at).callFrame);
      if (key && !seen.has(key)) {
        seen.add(key);
        add(inclusive, key, ms);
      }
    }
  }
  selfByFile.delete('(idle)');
  return { busy: total - idle, idle, gc, selfByFile, inclusive };
}

// A frame's file, shortened: dist/<file>, node_modules/<package>, node:<module>.
function where(frame) {
  const url = frame.url;
  if (!url) return '';
  const modules = url.lastIndexOf('/node_modules/');
  if (modules !== -1) {
    const parts = url.slice(modules + 14).split('/');
    return `node_modules/${parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]}`;
  }
  const dist = url.indexOf('/dist/');
  return dist !== -1 ? url.slice(dist + 1) : url.replace(/^node:internal\//, 'node:');
}

function label(frame) {
  const file = where(frame);
  const name = frame.functionName || '(anonymous)';
  if (file.startsWith('dist/')) return `${name} ${file}:${frame.lineNumber + 1}`;
  if (LIBRARY.has(name) && (file.startsWith('node_modules/') || file.startsWith('node:') || file === '')) return `${name} (${file || 'native'})`;
  return '';
}

function add(map, key, ms) {
  map.set(key, (map.get(key) ?? 0) + ms);
}

function ranked(map, n) {
  return [...map].sort((a, b) => b[1] - a[1]).slice(0, n);
}
