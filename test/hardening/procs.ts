import { readdirSync, readFileSync, readlinkSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { CLI, ROOT } from '../helpers.js';

/** Whether a process with this pid runs (a zombie, dead but not yet reaped, does not). */
export function isRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/** Every pid a fixture agent recorded in its pid file (JSON lines of pids). */
export function recordedPids(file: string): number[] {
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter(Boolean)
    .flatMap((line) => Object.values(JSON.parse(line) as Record<string, number>));
}

/** Wait until `check()` holds, polling; fail naming `what` after `ms`. */
export async function waitFor(check: () => boolean, what: string, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Wait until none of `pids` runs; returns those still running after `ms`. */
export async function survivors(pids: number[], ms = 3000): Promise<number[]> {
  const end = Date.now() + ms;
  while (pids.some(isRunning) && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 25));
  return pids.filter(isRunning);
}

/** Start the built CLI as a long-running process the test can signal; never rejects. */
export function startCli(args: string[], options: { cwd: string; detached?: boolean }) {
  return execa('node', [CLI, ...args], {
    cwd: options.cwd,
    env: { NO_COLOR: '1' },
    reject: false,
    stdin: 'ignore',
    detached: options.detached ?? false,
    timeout: 60_000,
  });
}

/** Processes (other than zombies) whose working folder is `dir`: the agents of a board. */
export function processesIn(dir: string): number[] {
  const pids: number[] = [];
  const real = realpathSync(dir);
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readlinkSync(`/proc/${entry}/cwd`) === real && isRunning(Number(entry))) pids.push(Number(entry));
    } catch {
      // gone meanwhile, or not ours to look at
    }
  }
  return pids;
}

/** Every descendant of `pid` (children, grandchildren, …), from /proc. */
export function descendants(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
    } catch {
      // gone meanwhile
    }
  }
  const found: number[] = [];
  const walk = (p: number) => {
    for (const child of children.get(p) ?? []) {
      found.push(child);
      walk(child);
    }
  };
  walk(pid);
  return found;
}

/** A fixture agent's path, for role files. */
export const fixture = (name: string): string => path.join(ROOT, 'test', 'fixtures', 'agents', name);
