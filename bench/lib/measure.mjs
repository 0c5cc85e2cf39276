// Timing and memory of child processes, measured from the outside.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';

const TIME = '/usr/bin/time';
const HAS_TIME = existsSync(TIME);

/**
 * Run argv to its end; resolve with its wall time in ms (`ms`) and, given `cpu` (a timer's
 * argv prefix, lib/agents.mjs `cpuTimer`), the CPU time (user + system) of it and of the
 * children it waited for (`cpuMs`; NaN without), or reject with its stderr if it fails. Under
 * a timer the wall time includes the timer's own start (well under 1 ms).
 */
export function timed(argv, options = {}) {
  const command = options.cpu ? [...options.cpu, ...argv] : argv;
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(command[0], command.slice(1), { cwd: options.cwd, env: options.env ?? process.env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = performance.now() - started;
      const [user, system] = options.cpu ? stderr.trim().split('\n').at(-1).split(' ').map(Number) : [NaN, NaN];
      if (code === 0) resolve({ ms, cpuMs: (user + system) * 1000 });
      else reject(new Error(`${argv.join(' ')} exited ${code}: ${stderr.trim()}`));
    });
  });
}

/** The median of a list of numbers. */
export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Median, min and max of a list of numbers. */
export function spread(values) {
  return { median: median(values), min: Math.min(...values), max: Math.max(...values) };
}

/**
 * Time each candidate `reps` times, interleaved and in an order that flips every round, so
 * load from other processes falls on all of them alike. A candidate is
 * `{ name, argv, cpu?, before?(), after?() }`; returns, by name, a `{ ms, cpuMs }` a round.
 */
export async function alternate(reps, candidates, onRound = () => {}) {
  const times = Object.fromEntries(candidates.map((c) => [c.name, []]));
  for (let round = 0; round < reps; round++) {
    const order = round % 2 ? [...candidates].reverse() : candidates;
    for (const candidate of order) {
      candidate.before?.();
      times[candidate.name].push(await timed(candidate.argv, candidate));
      candidate.after?.();
    }
    onRound(round + 1);
  }
  return times;
}

/**
 * Run argv and return its wall time and peak resident set size in bytes: the larger of
 * GNU time's maximum RSS (exact, taken at exit) and the VmHWM read from /proc while it runs.
 * The process measured is argv's own, not the agents it starts (those are separate processes
 * with their own RSS; time's figure covers the largest of them, and the benchmark's agents
 * are a few hundred KiB).
 */
export function peakRss(argv, options = {}) {
  const useTime = HAS_TIME;
  const command = useTime ? [TIME, '-f', '%M', ...argv] : argv;
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(command[0], command.slice(1), { cwd: options.cwd, env: options.env ?? process.env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    let polled = 0;
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const poll = setInterval(() => {
      const pid = useTime ? childOf(child.pid) : child.pid;
      if (pid) polled = Math.max(polled, vmHwm(pid));
    }, 10);
    child.on('error', reject);
    child.on('close', (code) => {
      clearInterval(poll);
      const ms = performance.now() - started;
      const lines = stderr.trim().split('\n');
      const timeKiB = useTime ? Number(lines.at(-1)) : NaN;
      if (code !== 0) return reject(new Error(`${argv.join(' ')} exited ${code}: ${stderr.trim()}`));
      resolve({ ms, bytes: Math.max(polled, Number.isFinite(timeKiB) ? timeKiB * 1024 : 0), source: useTime ? 'GNU time %M and /proc VmHWM' : '/proc VmHWM, polled every 10 ms' });
    });
  });
}

function childOf(pid) {
  try {
    return Number(readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(' ')[0]) || undefined;
  } catch {
    return undefined;
  }
}

function vmHwm(pid) {
  try {
    const kib = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kib ? Number(kib) * 1024 : 0;
  } catch {
    return 0;
  }
}
