// Part 2 of `npm run bench`: a long run. The supervisor runs `steps` steps with the native
// agents on a 10-task and on a 10,000-task board (the Manager wraps round the task list and
// echoes it whole, ~200 KB a step on the large board), while the benchmark samples the
// process from outside every second. Reports, per board:
//   - step times: the interval between one step's Manager start and the next one's (the C
//     Manager notes the time, lib/boards.mjs `times`), median (min–max) of the first and of
//     the last 1,000 steps, their ratio, and the longest step;
//   - memory: VmRSS from /proc/<pid>/status (and its anonymous and file-backed parts), the
//     median over the tenth of the run after the warm-up (the first 1,000 steps) against the
//     median over the last tenth;
//   - CPU time per step (utime + stime from /proc/<pid>/stat) in the same windows, which load
//     from other processes disturbs less than wall time;
//   - the files and bytes under .kanban-supervisor/ at the end, against the retention limit.
import { spawn } from 'node:child_process';
import { lstatSync, readFileSync, readdirSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { makeBoard, resetBoard } from './lib/boards.mjs';
import { spread } from './lib/measure.mjs';

const GOALS = { drift: 1.25, rssGrowthBytes: 15e6, maxStepMs: 1000 };
// The defaults of supervisor.keep_bytes and keep_attempts (src/settings.ts), and the size
// past which events.jsonl is moved to events.1.jsonl (src/log/events.ts).
const RETENTION = { bytes: 1024 ** 3, attempts: 10_000, eventsRotateBytes: 64 * 1024 ** 2 };
const EDGE = 1_000;
const TICKS_PER_SECOND = 100; // USER_HZ, what /proc/<pid>/stat counts in on Linux

/** Run the long run on each board size of `sizes`; returns the figures by size. */
export async function longRun({ work, cli, node, agents, steps, sizes }) {
  console.log(`2. Long run: ${steps.toLocaleString('en')} steps with the native agents on each board, sampled every second from outside`);
  const out = {};
  for (const tasks of sizes) {
    const dir = path.join(work, `long-${tasks}`);
    const file = makeBoard(dir, { tasks, steps, worker: agents.worker, manager: agents.manager, times: true });
    resetBoard(file);
    const loadBefore = loadavg();
    // Every second, as the long run asks; a short run (--quick) more often, to have samples at all.
    const run = await watch([node, cli, 'run', file, '--quiet', '--max-steps', String(steps)], dir, steps >= 10_000 ? 1000 : 200);
    const figures = { tasks, steps, loadBefore, loadAfter: loadavg(), ...summarize(run, dir, steps) };
    print(figures);
    out[tasks] = figures;
  }
  console.log('');
  return out;
}

// Run argv to its end, sampling its RSS and its CPU time every `everyMs`.
function watch(argv, dir, everyMs) {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const child = spawn(argv[0], argv.slice(1), { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const samples = [];
    const sample = () => {
      const status = readOr(`/proc/${child.pid}/status`);
      const stat = readOr(`/proc/${child.pid}/stat`);
      if (!status || !stat) return;
      const kib = (field) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1]) * 1024;
      const rss = kib('VmRSS');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const cpuMs = ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
      samples.push({ at: Date.now(), rss, anon: kib('RssAnon'), file: kib('RssFile'), cpuMs });
    };
    const timer = setInterval(sample, everyMs);
    const onTerminal = process.stdout.isTTY ? setInterval(() => process.stdout.write(`\r\x1b[K   ${path.basename(dir)}: step ${readOr(path.join(dir, 'bench-count')).trim()} · ${Math.round((Date.now() - started) / 1000)} s`), 5000) : undefined;
    child.on('error', reject);
    child.on('close', (code) => {
      clearInterval(timer);
      clearInterval(onTerminal);
      if (process.stdout.isTTY) process.stdout.write('\r\x1b[K');
      if (code !== 0) reject(new Error(`${argv.join(' ')} exited ${code}: ${stderr.trim()}`));
      else resolve({ started, ended: Date.now(), samples });
    });
  });
}

function summarize(run, dir, steps) {
  // bench-times: the wall clock in µs at each Manager start, one line a step.
  const starts = readFileSync(path.join(dir, 'bench-times'), 'utf8').trim().split('\n').map(Number);
  if (starts.length !== steps) throw new Error(`${dir}: ${starts.length} steps were timed, not ${steps}`);
  const stepMs = starts.slice(1).map((t, i) => (t - starts[i]) / 1000);
  const edge = Math.min(EDGE, Math.floor(stepMs.length / 4));
  const first = spread(stepMs.slice(0, edge));
  const last = spread(stepMs.slice(-edge));
  const longest = Math.max(...stepMs);
  // Windows for memory and CPU: right after the warm-up (its first `edge` steps), over the
  // next tenth of the run, against the last tenth.
  const atStep = (n) => starts[Math.min(n, starts.length - 1)] / 1000;
  const tenth = Math.max(1, Math.floor(steps / 10));
  const early = window(run.samples, atStep(edge), atStep(edge + tenth));
  const end = window(run.samples, atStep(steps - tenth), run.ended);
  const stepsIn = (from, to) => starts.filter((t) => t / 1000 >= from && t / 1000 < to).length;
  const cpuPerStep = (w) => (w.length > 1 ? (w.at(-1).cpuMs - w[0].cpuMs) / Math.max(1, stepsIn(w[0].at, w.at(-1).at)) : NaN);
  const tenths = Array.from({ length: 10 }, (_, i) => spread(stepMs.slice(Math.floor((i * stepMs.length) / 10), Math.floor(((i + 1) * stepMs.length) / 10))).median);
  const rssTenths = Array.from({ length: 10 }, (_, i) => {
    const w = window(run.samples, atStep(Math.floor((i * steps) / 10)), i === 9 ? run.ended : atStep(Math.floor(((i + 1) * steps) / 10)));
    return w.length ? spread(w.map((s) => s.rss)).median : NaN;
  });
  return {
    seconds: (run.ended - run.started) / 1000,
    edge,
    first,
    last,
    drift: last.median / first.median,
    longestMs: longest,
    longestStep: stepMs.indexOf(longest) + 2,
    overOneSecond: stepMs.filter((ms) => ms > 1000).length,
    tenthsMs: tenths,
    rss: {
      early: spread(early.map((s) => s.rss)),
      end: spread(end.map((s) => s.rss)),
      anonGrowth: spread(end.map((s) => s.anon)).median - spread(early.map((s) => s.anon)).median,
      fileGrowth: spread(end.map((s) => s.file)).median - spread(early.map((s) => s.file)).median,
      peak: Math.max(...run.samples.map((s) => s.rss)),
      tenths: rssTenths,
    },
    cpuPerStepMs: { early: cpuPerStep(early), end: cpuPerStep(end) },
    state: stateFolder(path.join(dir, '.kanban-supervisor')),
  };
}

function window(samples, from, to) {
  return samples.filter((s) => s.at >= from && s.at <= to);
}

// Files and bytes under the state folder (apparent sizes, and the blocks they take on disk):
// run output, events, the rest.
function stateFolder(state) {
  const parts = { runs: { files: 0, bytes: 0, disk: 0 }, events: { files: 0, bytes: 0, disk: 0 }, other: { files: 0, bytes: 0, disk: 0 } };
  const walk = (dir, part) => {
    for (const name of readdirSync(dir)) {
      const full = path.join(dir, name);
      const stats = lstatSync(full);
      const into = part ?? (name === 'runs' ? 'runs' : /^events(\.1)?\.jsonl$/.test(name) ? 'events' : 'other');
      if (stats.isDirectory()) walk(full, into);
      else {
        parts[into].files++;
        parts[into].bytes += stats.size;
        parts[into].disk += stats.blocks * 512;
      }
    }
  };
  walk(state);
  const sum = (key) => parts.runs[key] + parts.events[key] + parts.other[key];
  const total = { files: sum('files'), bytes: sum('bytes'), disk: sum('disk') };
  // The run output is held to keep_bytes and 2 files an attempt; events to two files of the rotation size (a line over, at most).
  const within = parts.runs.bytes <= RETENTION.bytes && parts.runs.files <= 2 * RETENTION.attempts && parts.events.bytes <= 2 * (RETENTION.eventsRotateBytes + 64 * 1024);
  return { ...parts, total, within };
}

function print(f) {
  const ms = (x) => `${x.toFixed(2)} ms`;
  const mb = (x) => `${(x / 1e6).toFixed(1)} MB`;
  const range = (s, fmt) => `${fmt(s.median)} (${fmt(s.min)}–${fmt(s.max)})`;
  const goal = (met, text) => `(${text}: ${met ? 'met' : 'MISSED'})`;
  console.log(`   ${f.tasks.toLocaleString('en')} tasks: ${f.steps.toLocaleString('en')} steps in ${duration(f.seconds)} · load ${f.loadBefore.map((l) => l.toFixed(2)).join(' ')} before, ${f.loadAfter.map((l) => l.toFixed(2)).join(' ')} after`);
  console.log(`     step, first ${f.edge.toLocaleString('en')}  ${range(f.first, ms)}`);
  console.log(`     step, last ${f.edge.toLocaleString('en')}   ${range(f.last, ms)} · ${f.drift.toFixed(2)}x the first ${goal(f.drift <= GOALS.drift, `goal <= ${GOALS.drift}x`)}`);
  console.log(`     longest step  ${ms(f.longestMs)} (step ${f.longestStep.toLocaleString('en')}); ${f.overOneSecond} over 1 s ${goal(f.longestMs <= GOALS.maxStepMs, 'goal: none over 1 s')}`);
  console.log(`     median step by tenth of the run: ${f.tenthsMs.map((x) => x.toFixed(1)).join(' ')} ms`);
  const growth = f.rss.end.median - f.rss.early.median;
  console.log(`     RSS after warm-up ${mb(f.rss.early.median)} · at the end ${mb(f.rss.end.median)} · growth ${mb(growth)} ${goal(growth <= GOALS.rssGrowthBytes, 'goal <= 15 MB')} (anonymous ${mb(f.rss.anonGrowth)}, file-backed ${mb(f.rss.fileGrowth)}) · peak ${mb(f.rss.peak)}`);
  console.log(`     RSS by tenth of the run: ${f.rss.tenths.map((x) => (x / 1e6).toFixed(0)).join(' ')} MB`);
  console.log(`     CPU per step of the supervisor process (its agents not counted): after warm-up ${ms(f.cpuPerStepMs.early)} · at the end ${ms(f.cpuPerStepMs.end)} · ${(f.cpuPerStepMs.end / f.cpuPerStepMs.early).toFixed(2)}x`);
  const s = f.state;
  console.log(`     .kanban-supervisor/ at the end: ${s.total.files.toLocaleString('en')} files, ${mb(s.total.bytes)}, ${mb(s.total.disk)} on disk (run output ${s.runs.files.toLocaleString('en')} files ${mb(s.runs.bytes)}; events ${mb(s.events.bytes)}; other ${s.other.files}) ${goal(s.within, 'goal: within keep_bytes 1 GiB, 2 files x keep_attempts 10,000, events 2 x 64 MiB')}`);
}

function duration(seconds) {
  return seconds >= 120 ? `${Math.floor(seconds / 60)} min ${Math.round(seconds % 60)} s` : `${seconds.toFixed(1)} s`;
}

function readOr(file) {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}
