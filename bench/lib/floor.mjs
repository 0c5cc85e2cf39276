// The floor each supervisor step figure is held against: what SPEC itself makes a step do,
// written as plainly as Node allows, and nothing else. Per step:
//   - kanban.yaml read again and parsed as YAML once (SPEC §2: the source of truth, re-read
//     every step), `current` taken from the parse;
//   - the task's front-matter read (the head of the task file) and the two role files read
//     (a person may edit them between steps);
//   - per agent: the agent record written before the spawn and removed after it, the spawn
//     itself (async, in a process group of its own, the same argv, stdin bytes, environment
//     and working directory as the supervisor's, plus a tag of the same shape), its stdout
//     streamed to the attempt's log file (created at the first byte; stderr only when
//     non-empty), the /proc scan for processes carrying the agent run's tag once it exited
//     (SPEC §5; `sweep: false` leaves it out), and `JSON.parse` of the reply;
//   - the events of a step appended to events.jsonl, as many and as long as the supervisor's;
//   - the Manager's input holding `history`, the last 50 steps as the supervisor gives them
//     (src/events/step-history.ts), so both Managers read the same number of bytes;
//   - each task path the Manager returns checked once (SPEC §3: relative, inside the board
//     folder, an existing file);
//   - the board written atomically: a temp file, fsync, rename, fsync of the folder.
// No parsing of front-matter, no schema, no retention (nothing is pruned in the step counts
// measured), no symlink-safe folder walk beyond O_NOFOLLOW.
//   node floor.mjs '<json config>'   (see FloorConfig below)
import { spawn } from 'node:child_process';
import { closeSync, constants, createWriteStream, fsyncSync, mkdirSync, openSync, readFileSync, readSync, readdirSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { WORKER_PROMPT, managerEnv, taskPath } from './boards.mjs';

/** The environment variable that tags every process of an agent run (the supervisor's src/agent/tag.ts). */
export const TAG_VARIABLE = 'KANBAN_SUPERVISOR_TAG';

/**
 * @typedef {object} FloorConfig
 * @property {'steps' | 'stream'} mode  steps: the loop above until the board's current is null;
 *   stream: run the worker once, its stdout to a file as the supervisor does, and parse the reply at its end
 * @property {string} dir     the board folder (the agents' cwd)
 * @property {string[]} worker
 * @property {string[]} manager
 * @property {number} tasks
 * @property {number} steps
 * @property {boolean} [times]  the Manager notes its start times (managerEnv)
 * @property {boolean} [sizes]  the Manager notes the length of its input (managerEnv)
 * @property {boolean} [sweep]  scan /proc after each attempt (default true)
 * @property {boolean} [history]  give the Manager `history` (default true; builds before it had none)
 * @property {Record<string, string>} [workerEnv]
 */

/** The worker's spawn for a task, as the supervisor makes it (README, "Role files"). */
export function workerCall(config, task, tag = '') {
  const inputs = { role: 'Implementor', kanban_file: 'kanban.yaml', task_file: task };
  return { argv: config.worker, stdin: WORKER_PROMPT.replace('{{task_file}}', task), env: agentEnv(inputs, JSON.stringify(inputs), config.workerEnv ?? {}, tag) };
}

/** The Manager's spawn after a task, with the worker's reply as `result` and the recent steps as `history`. */
export function managerCall(config, task, tasks, result, tag = '', history = undefined) {
  const inputs = { role: 'Manager', kanban_file: 'kanban.yaml', done_task: task, tasks, result, ...(history && { history }) };
  const json = JSON.stringify(inputs);
  return { argv: config.manager, stdin: `${json}\n`, env: agentEnv(inputs, json, managerEnv(config.tasks, config.steps, config.times, config.sizes), tag) };
}

function agentEnv(inputs, json, roleEnv, tag) {
  const env = { ...process.env, ...roleEnv, [TAG_VARIABLE]: tag, KANBAN_ROLE: inputs.role, KANBAN_FILE: inputs.kanban_file, KANBAN_TASK_FILE: inputs.task_file ?? '', KANBAN_DONE_TASK: inputs.done_task ?? '' };
  if (json.length <= 64 * 1024) env.KANBAN_INPUT = json;
  else delete env.KANBAN_INPUT;
  return env;
}

const { O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW, O_APPEND, O_RDONLY, O_DIRECTORY } = constants;
const NEW_FILE = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW;

/** One run of the floor loop: its folders and open files, and the attempt helpers. */
class FloorRun {
  constructor(config) {
    this.config = config;
    this.dir = config.dir;
    this.run = `${new Date().toISOString().replace(/[:.]/g, '-')}-${process.pid}`;
    this.state = path.join(this.dir, '.kanban-supervisor');
    this.runDir = path.join(this.state, 'runs', this.run);
    mkdirSync(this.runDir, { recursive: true });
    this.events = openSync(path.join(this.state, 'events.jsonl'), O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW, 0o644);
    this.boardDir = openSync(this.dir, O_RDONLY | O_DIRECTORY);
    this.host = hostname();
    this.agents = 0;
    this.emit('run_started', { board: 'kanban.yaml', pid: process.pid });
    this.space = { buffer: Buffer.allocUnsafe(16 * 1024) };
  }

  emit(type, fields) {
    const event = { time: new Date().toISOString(), type, run: this.run, ...fields };
    writeSync(this.events, `${JSON.stringify(event)}\n`);
    return event;
  }

  /** A tag of the supervisor's shape, `ks1-<16 hex>-<step>-<role>`, unique to this agent run. */
  tag(step, role) {
    const unique = (process.pid * 2 ** 20 + ++this.agents).toString(16).padStart(16, '0').slice(-16);
    return `ks1-${unique}-${step}-${role}`;
  }

  /** One attempt of an agent: record, spawn, log, sweep, parse. */
  async attempt(step, role, task, call, tag) {
    const where = { step, role, task, ...(role === 'Manager' && { board: 'kanban.yaml', done_task: task }) };
    const record = path.join(this.state, 'agent.json');
    const fd = openSync(record, NEW_FILE, 0o600);
    writeSync(fd, `${JSON.stringify({ tag, role, task, host: this.host, since: new Date().toISOString() })}\n`);
    this.emit('attempt_started', { ...where, attempt: 1, of: 1, command: call.argv.join(' '), timeoutMs: 1_800_000 });
    const started = performance.now();
    const base = `${String(step).padStart(9, '0')}-${role.toLowerCase()}-1-${task.replace(/\.md$/, '').replace(/[^A-Za-z0-9._-]+/g, '_')}`;
    const { text, bytes, exit } = await this.spawnAgent(call, base);
    closeSync(fd);
    unlinkSync(record);
    const reply = JSON.parse(text.slice(text.lastIndexOf('\n', text.length - 2) + 1));
    this.emit('attempt_finished', { ...where, attempt: 1, of: 1, end: 'exited', exitCode: exit, signal: null, killedWith: null, durationMs: Math.round(performance.now() - started), stdoutBytes: bytes, valid: true, via: 'whole', status: reply.status, message: reply.message, stdoutFile: `.kanban-supervisor/runs/${this.run}/${base}.out` });
    return reply;
  }

  spawnAgent(call, base) {
    return new Promise((resolve, reject) => {
      const [file, ...args] = call.argv;
      const child = spawn(file, args, { cwd: this.dir, env: call.env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
      const since = this.config.sweep === false ? 0 : startTicks(child.pid, this.space);
      const logs = { out: undefined, err: undefined };
      const write = (which) => (chunk) => {
        logs[which] ??= openSync(path.join(this.runDir, `${base}.${which}`), NEW_FILE, 0o600);
        writeSync(logs[which], chunk);
      };
      let kept = [];
      let bytes = 0;
      child.stdout.on('data', (chunk) => {
        write('out')(chunk);
        bytes += chunk.length;
        kept.push(chunk);
      });
      child.stderr.on('data', write('err'));
      child.stdin.on('error', () => {});
      child.stdin.end(call.stdin);
      child.on('error', reject);
      child.on('close', (exit) => {
        if (this.config.sweep !== false) sweep(call.env[TAG_VARIABLE], since, this.space);
        for (const fd of Object.values(logs)) if (fd !== undefined) closeSync(fd);
        const text = Buffer.concat(kept).toString('utf8');
        kept = [];
        resolve({ text, bytes, exit });
      });
    });
  }

  /** The atomic board write SPEC §5 asks for: temp file, fsync, rename, fsync of the folder. */
  writeBoard(file, text) {
    const temp = path.join(this.dir, `.kanban.yaml.${process.pid}-${++this.agents}.tmp`);
    const fd = openSync(temp, NEW_FILE, 0o644);
    try {
      writeSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, file);
    fsyncSync(this.boardDir);
  }

  close() {
    closeSync(this.events);
    closeSync(this.boardDir);
  }
}

// Field 22 of /proc/<pid>/stat: when the process started, in clock ticks since boot.
function startTicks(pid, space) {
  const stat = readProcFile(`/proc/${pid}/stat`, space);
  if (stat === undefined) return 0;
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
}

// A /proc file read whole into `space.buffer` (grown as needed), as latin1 text; undefined
// when the process is gone or not ours to read.
function readProcFile(file, space) {
  let fd;
  try {
    fd = openSync(file, 'r');
  } catch {
    return undefined;
  }
  try {
    let length = 0;
    for (;;) {
      if (length === space.buffer.length) space.buffer = Buffer.concat([space.buffer, Buffer.allocUnsafe(length)]);
      const got = readSync(fd, space.buffer, length, space.buffer.length - length, null);
      if (got === 0) return space.buffer.toString('latin1', 0, length);
      length += got;
    }
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/**
 * The scan SPEC §5 requires when an attempt ends: every process started no earlier than the
 * agent whose environment carries its tag (none, here, so nothing is signalled). The stat of
 * every process is read (its start time), the environment of the later ones only.
 */
function sweep(tag, since, space) {
  const key = `\0${TAG_VARIABLE}=${tag}`;
  const found = [];
  for (const entry of readdirSync('/proc')) {
    const first = entry.charCodeAt(0);
    if (first < 0x30 || first > 0x39 || Number(entry) === process.pid) continue;
    const stat = readProcFile(`/proc/${entry}/stat`, space);
    if (stat === undefined) continue;
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (fields[0] === 'Z' || Number(fields[19]) < since) continue;
    const environ = readProcFile(`/proc/${entry}/environ`, space);
    if (environ !== undefined && `\0${environ}`.includes(key)) found.push(Number(entry));
  }
  if (found.length) throw new Error(`the floor found processes left by an agent: ${found.join(' ')}`);
}

async function steps(config) {
  const run = new FloorRun(config);
  const file = path.join(config.dir, 'kanban.yaml');
  const workerRole = path.join(config.dir, 'roles', 'implementor.md');
  const managerRole = path.join(config.dir, 'roles', 'manager.md');
  let tasks = Array.from({ length: config.tasks }, (_, i) => taskPath(i + 1));
  const history = [];
  let step = 0;
  for (;;) {
    const text = readFileSync(file, 'utf8');
    const current = parseYaml(text).current;
    if (typeof current !== 'string') break;
    step++;
    const started = run.emit('step_started', { step, role: 'Implementor', task: current, phase: 'execute' }).time;
    readHead(path.join(config.dir, current), run.space);
    readFileSync(workerRole, 'utf8');
    const workerTag = run.tag(step, 'Implementor');
    const result = await run.attempt(step, 'Implementor', current, workerCall(config, current, workerTag), workerTag);
    readFileSync(managerRole, 'utf8');
    const managerTag = run.tag(step, 'Manager');
    const done = { run: run.run, step, time: started, task: current, role: 'Implementor', attempts: 1, invalid: [], limit_waits: 0, status: result.status, message: result.message };
    history.unshift(done);
    if (history.length > 50) history.pop();
    const answer = await run.attempt(step, 'Manager', current, managerCall(config, current, tasks, result, managerTag, config.history === false ? undefined : history), managerTag);
    tasks = answer.tasks;
    for (const task of tasks) checkTaskPath(config.dir, task);
    const next = answer.next_task;
    done.manager = { status: answer.status, next_task: next };
    run.writeBoard(file, text.replace(/^current: .*$/m, `current: ${next ?? 'null'}`));
    run.emit('board_written', { step, task: current, written: true, current: next, tasks: tasks.length, status: answer.status, message: answer.message });
  }
  run.emit('done', { steps: step, phase: 'execute', current: null });
  run.close();
}

// The check SPEC §3 makes of every path in a Manager's answer: relative, inside the board, an existing file.
function checkTaskPath(dir, task) {
  if (path.isAbsolute(task) || task.split('/').includes('..') || !statSync(path.join(dir, task)).isFile()) throw new Error(`the floor's Manager answered a bad task path: ${task}`);
}

// A task file's head, as far as its front-matter could reach.
function readHead(file, space) {
  const fd = openSync(file, 'r');
  try {
    readSync(fd, space.buffer, 0, Math.min(space.buffer.length, 256 * 1024), 0);
  } finally {
    closeSync(fd);
  }
}

// The memory part's floor: one worker whose stdout goes to a file as it comes, the reply
// parsed from what is kept of its end.
function stream(config) {
  return new Promise((resolve, reject) => {
    const call = workerCall(config, taskPath(1));
    const [file, ...args] = call.argv;
    const child = spawn(file, args, { cwd: config.dir, env: call.env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    const sink = createWriteStream(path.join(config.dir, 'out.log'));
    let kept = [];
    child.stdout.on('data', (chunk) => {
      kept = [kept.at(-1), chunk].filter(Boolean);
    });
    child.stdout.pipe(sink);
    child.stderr.resume();
    child.stdin.on('error', () => {});
    child.stdin.end(call.stdin);
    child.on('error', reject);
    child.on('close', () => {
      const text = Buffer.concat(kept).toString('utf8').trimEnd();
      resolve(JSON.parse(text.slice(text.lastIndexOf('\n') + 1)));
    });
  });
}

async function main(config) {
  if (config.mode === 'stream') await stream(config);
  else await steps(config);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main(JSON.parse(process.argv[2] ?? '{}'));
