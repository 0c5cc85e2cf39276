// Builds the benchmark's agents: tiny native programs from agents/*.c, so a step's time is
// spawning and the supervisor's own work, not an interpreter starting up; and cputime.c, which
// reports a command's CPU time to the microsecond.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const SOURCES = fileURLToPath(new URL('../agents/', import.meta.url));
const NAMES = ['worker', 'manager', 'spew'];
const TIME = '/usr/bin/time';

/**
 * Compile the agents into `binDir` with the first C compiler found, or fall back to the Node
 * versions in agents/fallback.mjs. Returns each agent's argv, what was used, and `cpuTimer`:
 * the argv prefix that prints a command's user and system CPU seconds as the last line of its
 * stderr (cputime, else GNU time to the hundredth, else none).
 */
export function buildAgents(binDir) {
  mkdirSync(binDir, { recursive: true });
  const compiler = ['cc', 'gcc', 'clang'].find((cc) => works(cc));
  if (!compiler) {
    const script = path.join(SOURCES, 'fallback.mjs');
    const argv = Object.fromEntries(NAMES.map((name) => [name, [process.execPath, script, name]]));
    const cpuTimer = existsSync(TIME) ? [TIME, '-f', '%U %S'] : undefined;
    return { ...argv, cpuTimer, built: 'NO C COMPILER FOUND: agents are Node scripts (agents/fallback.mjs), so spawn times dwarf the supervisor' };
  }
  const argv = {};
  for (const name of [...NAMES, 'cputime']) {
    const source = path.join(SOURCES, `${name}.c`);
    const binary = path.join(binDir, name);
    if (!fresh(binary, source)) execFileSync(compiler, ['-O2', '-Wall', '-Wextra', '-Werror', '-o', binary, source], { stdio: 'inherit' });
    argv[name] = [binary];
  }
  const { cputime, ...agents } = argv;
  return { ...agents, cpuTimer: cputime, built: `C agents built with ${execFileSync(compiler, ['--version'], { encoding: 'utf8' }).split('\n')[0]}` };
}

function works(cc) {
  try {
    execFileSync(cc, ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

function fresh(binary, source) {
  try {
    return statSync(binary).mtimeMs >= statSync(source).mtimeMs;
  } catch {
    return false;
  }
}
