// Builds the benchmark's agents: tiny native programs from agents/*.c, so a step's time is
// spawning and the supervisor's own work, not an interpreter starting up.
import { execFileSync } from 'node:child_process';
import { mkdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const SOURCES = fileURLToPath(new URL('../agents/', import.meta.url));
const NAMES = ['worker', 'manager', 'spew'];

/**
 * Compile the agents into `binDir` with the first C compiler found, or fall back to the Node
 * versions in agents/fallback.mjs. Returns each agent's argv and what was used.
 */
export function buildAgents(binDir) {
  mkdirSync(binDir, { recursive: true });
  const compiler = ['cc', 'gcc', 'clang'].find((cc) => works(cc));
  if (!compiler) {
    const script = path.join(SOURCES, 'fallback.mjs');
    const argv = Object.fromEntries(NAMES.map((name) => [name, [process.execPath, script, name]]));
    return { ...argv, built: 'NO C COMPILER FOUND: agents are Node scripts (agents/fallback.mjs), so spawn times dwarf the supervisor' };
  }
  const argv = {};
  for (const name of NAMES) {
    const source = path.join(SOURCES, `${name}.c`);
    const binary = path.join(binDir, name);
    if (!fresh(binary, source)) execFileSync(compiler, ['-O2', '-Wall', '-Wextra', '-Werror', '-o', binary, source], { stdio: 'inherit' });
    argv[name] = [binary];
  }
  return { ...argv, built: `C agents built with ${execFileSync(compiler, ['--version'], { encoding: 'utf8' }).split('\n')[0]}` };
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
