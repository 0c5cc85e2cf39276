// What `kanban-supervisor run` loads when the board has nothing to run, and what each part
// costs (part 3 of `npm run bench` points here when start-up is over its goal).
//   node bench/startup-modules.mjs [--reps 15] [--cli dist/cli.js] [--work bench/.work]
// 1. The modules the run loads: ES modules through a loader hook, CommonJS ones from the
//    require cache at exit, counted by package (node_modules/<name>) or dist/ folder, with the
//    first chain of static imports from commands/run.js that reaches each package.
// 2. What each costs: whole processes, alternating, CPU and wall time: an empty ES module
//    (`node --input-type=module -e ""`, the base of the rows below it); each dependency
//    loaded alone as the run loads it (the same files of it, with whatever they import); the
//    modules the "nothing to run" check itself needs (board/locate.js and board/read.js,
//    reading the board); every module the run loads, imported without running
//    (commands/run.js); and the whole run. `node -e 0` is the goal's floor.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { buildAgents } from './lib/agents.mjs';
import { makeBoard, resetBoard } from './lib/boards.mjs';
import { alternate, spread } from './lib/measure.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const NODE = process.execPath;
const { values } = parseArgs({ options: { reps: { type: 'string', default: '15' }, cli: { type: 'string' }, work: { type: 'string' } } });
const CLI = path.resolve(values.cli ?? path.join(ROOT, 'dist', 'cli.js'));
const DIST = path.dirname(CLI);
const WORK = path.resolve(values.work ?? path.join(ROOT, 'bench', '.work'));
const agents = buildAgents(path.join(WORK, 'bin'));
const board = makeBoard(path.join(WORK, 'finished'), { tasks: 3, steps: 1, worker: agents.worker, manager: agents.manager, finished: true });

const loaded = loadedModules();
const groups = new Map();
for (const file of loaded) {
  const key = groupOf(file);
  groups.set(key, (groups.get(key) ?? 0) + 1);
}
const packages = [...groups.keys()].filter((k) => !k.startsWith('dist/') && !k.includes('/node_modules/') && k !== 'other').map((k) => k.replace(/^node_modules\//, ''));
const direct = packages.filter((name) => isDirectDependency(name));
console.log(`Modules loaded by \`run\` on a finished board: ${loaded.length} files`);
for (const [key, count] of [...groups].sort((a, b) => b[1] - a[1])) {
  const chain = key.startsWith('node_modules/') ? importChain(key.replace(/^node_modules\//, '')) : undefined;
  console.log(`  ${String(count).padStart(4)}  ${key}${chain ? `   ← ${chain}` : ''}`);
}

const reps = Number(values.reps);
const readOnly = [`const { realBoardPath } = await import(${JSON.stringify(pathToFileURL(path.join(DIST, 'board', 'locate.js')).href)});`, `const { readBoard } = await import(${JSON.stringify(pathToFileURL(path.join(DIST, 'board', 'read.js')).href)});`, `if (readBoard(realBoardPath(${JSON.stringify(board)})).current !== null) throw new Error('not finished');`].join('\n');
const commands = [
  { name: 'node -e 0', argv: [NODE, '-e', '0'] },
  { name: 'empty ES module', argv: [NODE, '--input-type=module', '-e', ''] },
  ...direct.map((name) => ({ name: `load ${name} (${filesOf(name).length} of its files)`, argv: [NODE, '--input-type=module', '-e', loadScript(filesOf(name))] })),
  { name: 'board/locate + board/read, the board read', argv: [NODE, '--input-type=module', '-e', readOnly] },
  { name: 'import commands/run.js: all the run loads', argv: [NODE, '--input-type=module', '-e', `await import(${JSON.stringify(pathToFileURL(path.join(DIST, 'commands', 'run.js')).href)});`] },
  { name: 'run on a finished board', argv: [NODE, CLI, 'run', board, '--quiet'], before: () => resetBoard(board) },
];
console.log(`\nWhat each costs: ${reps} alternating rounds, CPU time (user + system) and wall time, medians (min–max)`);
const raw = await alternate(reps, commands.flatMap((c) => [c, { ...c, name: `${c.name} (cpu)`, cpu: agents.cpuTimer }]));
const base = { wall: spread(raw['empty ES module'].map((r) => r.ms)).median, cpu: spread(raw['empty ES module (cpu)'].map((r) => r.cpuMs)).median };
const floor = spread(raw['node -e 0'].map((r) => r.ms)).median;
const results = {};
for (const { name } of commands) {
  const wall = spread(raw[name].map((r) => r.ms));
  const cpu = spread(raw[`${name} (cpu)`].map((r) => r.cpuMs));
  results[name] = { wall, cpu };
  const over = name === 'node -e 0' || name === 'empty ES module' ? '' : ` · over an empty ES module: CPU +${(cpu.median - base.cpu).toFixed(0)} ms, wall +${(wall.median - base.wall).toFixed(1)} ms`;
  console.log(`  ${name.padEnd(44)} CPU ${`${cpu.median.toFixed(0)} ms`.padStart(7)} · wall ${`${wall.median.toFixed(1)} ms`.padStart(9)} (${wall.min.toFixed(1)}–${wall.max.toFixed(1)}) · ${(wall.median / floor).toFixed(2)}x node -e 0${over}`);
}
writeFileSync(path.join(WORK, 'startup-modules.json'), `${JSON.stringify({ time: new Date().toISOString(), cli: CLI, loaded: Object.fromEntries(groups), results }, null, 2)}\n`);

// Every module file the run loads: ES modules seen by a loader hook, CommonJS ones left in the require cache.
function loadedModules() {
  const dir = mkdtempSync(path.join(tmpdir(), 'ks-startup-'));
  try {
    const out = path.join(dir, 'loaded.txt');
    writeFileSync(path.join(dir, 'hooks.mjs'), `import { appendFileSync } from 'node:fs';\nexport async function load(url, context, next) {\n  if (url.startsWith('file:')) appendFileSync(${JSON.stringify(out)}, url + '\\n');\n  return next(url, context);\n}\n`);
    writeFileSync(
      path.join(dir, 'preload.mjs'),
      `import { appendFileSync } from 'node:fs';\nimport { createRequire, register } from 'node:module';\nimport { pathToFileURL } from 'node:url';\nregister('./hooks.mjs', import.meta.url);\nconst require = createRequire(import.meta.url);\nprocess.on('exit', () => appendFileSync(${JSON.stringify(out)}, Object.keys(require.cache).map((f) => pathToFileURL(f).href + '\\n').join('')));\n`,
    );
    resetBoard(board);
    execFileSync(NODE, ['--import', pathToFileURL(path.join(dir, 'preload.mjs')).href, CLI, 'run', board, '--quiet'], { stdio: 'ignore' });
    const urls = new Set(readFileSync(out, 'utf8').trim().split('\n'));
    return [...urls].map((url) => fileURLToPath(url)).filter((file) => !file.startsWith(dir));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// The files of a package the run loaded, outside any nested node_modules.
function filesOf(name) {
  return loaded.filter((file) => groupOf(file) === `node_modules/${name}`);
}

// A module loading `files` as the run does: CommonJS ones by require, ES modules by import.
function loadScript(files) {
  const lines = ["import { createRequire } from 'node:module';", `const require = createRequire(${JSON.stringify(pathToFileURL(path.join(ROOT, 'package.json')).href)});`];
  for (const file of files) lines.push(isCommonJs(file) ? `require(${JSON.stringify(file)});` : `await import(${JSON.stringify(pathToFileURL(file).href)});`);
  return lines.join('\n');
}

function isCommonJs(file) {
  if (file.endsWith('.cjs')) return true;
  if (file.endsWith('.mjs')) return false;
  for (let dir = path.dirname(file); dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const manifest = path.join(dir, 'package.json');
    if (existsSync(manifest)) return JSON.parse(readFileSync(manifest, 'utf8')).type !== 'module';
  }
  return true;
}

function groupOf(file) {
  const inModules = file.lastIndexOf('/node_modules/');
  if (inModules !== -1) {
    const parts = file.slice(inModules + '/node_modules/'.length).split('/');
    return `node_modules/${parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]}`;
  }
  if (file.startsWith(DIST)) {
    const parts = path.relative(DIST, file).split(path.sep);
    return parts.length > 1 ? `dist/${parts[0]}/` : `dist/${parts[0]}`;
  }
  return 'other';
}

function isDirectDependency(name) {
  const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  return Object.hasOwn(pkg.dependencies ?? {}, name);
}

// The first chain of static imports from commands/run.js to a package (breadth first), or
// undefined if only another package (or a dynamic import) brings it in.
function importChain(name) {
  const start = path.join(DIST, 'commands', 'run.js');
  const seen = new Map([[start, null]]);
  const queue = [start];
  while (queue.length) {
    const file = queue.shift();
    for (const spec of staticImports(file)) {
      if (spec === name || spec.startsWith(`${name}/`)) {
        const chain = [];
        for (let at = file; at; at = seen.get(at)) chain.unshift(path.relative(DIST, at));
        return chain.join(' → ');
      }
      if (!spec.startsWith('.')) continue;
      const next = path.resolve(path.dirname(file), spec);
      if (!seen.has(next) && existsSync(next)) {
        seen.set(next, file);
        queue.push(next);
      }
    }
  }
  return undefined;
}

function staticImports(file) {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/^(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|^import\s+['"]([^'"]+)['"]/gm)].map((m) => m[1] ?? m[2]);
}
