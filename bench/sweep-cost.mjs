#!/usr/bin/env node
// What the sweep after every attempt costs when it finds nothing (the usual case), with the
// processes running now and with about `--total` processes (idle `sleep`s are started to
// reach it). Prints medians in microseconds of:
//   sweep      sweepTagged(tag, { since: the agent's start }): what runs after each attempt
//   takeover   sweepTagged(tag) with no start time: every process's environment is read
//   readdir    listing /proc alone, the floor of any scan
// Run `npm run build` first.   node bench/sweep-cost.mjs [--total 1000] [--reps 200]
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { readProcInfo } from '../dist/util/proc-stat.js';
import { sweepTagged } from '../dist/agent/sweep.js';

const { values } = parseArgs({ options: { total: { type: 'string', default: '1000' }, reps: { type: 'string', default: '200' } } });
const reps = Number(values.reps);
const processes = () => readdirSync('/proc').filter((entry) => /^\d+$/.test(entry)).length;
const median = (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function timed(fn) {
  const samples = [];
  for (let i = 0; i < reps; i++) {
    const start = process.hrtime.bigint();
    await fn();
    samples.push(Number(process.hrtime.bigint() - start) / 1000);
  }
  return Math.round(median(samples));
}

async function measure(label) {
  // The agent starts after every process already there, as a new attempt does.
  await sleep(30);
  const agent = spawn('sleep', ['0.2']);
  const since = readProcInfo(agent.pid)?.startTicks ?? 0;
  await new Promise((resolve) => agent.once('exit', resolve));
  const tag = `ks1-bench${process.pid}-1-implementor`;
  const check = await sweepTagged(tag, { since });
  if (!check.supported || check.found.length > 0) throw new Error(`unexpected sweep result ${JSON.stringify(check)}`);
  const row = {
    label,
    processes: processes(),
    sweep: await timed(() => sweepTagged(tag, { since })),
    takeover: await timed(() => sweepTagged(tag)),
    readdir: await timed(() => readdirSync('/proc')),
  };
  console.log(`${row.label.padEnd(14)} ${String(row.processes).padStart(5)} processes   sweep ${row.sweep} µs   takeover ${row.takeover} µs   readdir /proc ${row.readdir} µs`);
}

if (process.platform !== 'linux') {
  console.log('The sweep reads /proc: Linux only.');
  process.exit(0);
}
await measure('as it is');
const extra = Math.max(0, Number(values.total) - processes());
// One shell holding the idle processes, in a group of its own so one kill ends them all.
const holder = spawn('bash', ['-c', `for i in $(seq ${extra}); do sleep 600 & done; wait`], { detached: true, stdio: 'ignore' });
while (processes() < Number(values.total) - 5) await sleep(100);
try {
  await measure('with idle ones');
} finally {
  process.kill(-holder.pid, 'SIGKILL');
}
