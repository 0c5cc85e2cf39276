import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { descendants, processesIn } from '../hardening/procs.js';
import { CLI, ROOT, tempDir } from '../helpers.js';
import type { ModelRequest, WriteTurn } from '../fixtures/fake-model-server.mjs';

/** The agent CLIs this suite drives, by preset name. */
export type AgentCli = 'claude' | 'codex' | 'gemini';

/** The agent CLIs with a preset but no adapter of their own (more-suite.ts). */
export type MoreCli = 'opencode' | 'copilot' | 'kilo';

/** Where `npm ci --prefix test/clis` puts the real CLIs' bins. */
export const CLI_BIN = path.join(ROOT, 'test', 'clis', 'node_modules', '.bin');

const PACKAGES: Record<AgentCli | MoreCli, string> = {
  claude: '@anthropic-ai/claude-code',
  codex: '@openai/codex',
  gemini: '@google/gemini-cli',
  opencode: 'opencode-ai',
  copilot: '@github/copilot',
  kilo: '@kilocode/cli',
};

/**
 * The pinned version of an agent CLI, after checking the installed program is that version.
 * Throws (never skips) when it is missing, so CI cannot pass without running the real programs.
 */
export function installedVersion(agent: AgentCli | MoreCli): string {
  const wanted = (
    JSON.parse(readFileSync(path.join(ROOT, 'test', 'clis', 'package.json'), 'utf8')) as {
      devDependencies: Record<string, string>;
    }
  ).devDependencies[PACKAGES[agent]] as string;
  const bin = path.join(CLI_BIN, agent);
  if (!existsSync(bin))
    throw new Error(`${bin} is missing: run \`npm ci --prefix test/clis\` (npm run test:clis does it for you).`);
  // A HOME and temp folder of its own: opencode and Kilo write folders there even for --version.
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'ks-version-'));
  let printed: string;
  try {
    printed = execFileSync(bin, ['--version'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 30_000,
      env: { ...process.env, HOME: scratch, TMPDIR: scratch, XDG_DATA_HOME: scratch, XDG_CACHE_HOME: scratch },
    });
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  if (!printed.includes(wanted))
    throw new Error(
      `${bin} --version printed "${printed.trim()}", not the pinned ${wanted}: run \`npm ci --prefix test/clis\`.`,
    );
  return wanted;
}

/** How agentEnv logs a CLI in, and whether the CLI may retry failed model requests itself. */
export interface AgentEnvOptions {
  /** false: no API key, as for a CLI nobody has logged in to. */
  key?: boolean;
  /**
   * Claude Code only: log in as a claude.ai plan (CLAUDE_CODE_OAUTH_TOKEN) instead of with an API
   * key. Only then does it read the fake server's plan-limit headers, word a 429 as "You've hit your
   * … limit · resets …", print rate_limit_event lines, and not retry the 429 itself.
   */
  subscription?: boolean;
  /**
   * false: the CLI gives up on the first failed model request (CLAUDE_CODE_MAX_RETRIES=0; Codex
   * request_max_retries and stream_max_retries 0; Gemini general.maxAttempts 1), so a failure mode
   * of the fake server reaches the supervisor at once instead of after the CLI's own back-off
   * (up to minutes; test/fixtures/recorded/NOTES.md).
   */
  ownRetries?: boolean;
}

/**
 * A clean environment (nothing inherited) that points one agent CLI at the fake model server,
 * with a fresh HOME holding the config it needs to stay offline (see test/fixtures/recorded/NOTES.md).
 */
export function agentEnv(agent: AgentCli, url: string, options: AgentEnvOptions = {}): Record<string, string> {
  const home = tempDir('ks-home-');
  const tmp = path.join(home, 'tmp');
  mkdirSync(tmp);
  const key = options.key ?? true;
  const retries = options.ownRetries ?? true;
  const env: Record<string, string> = {
    PATH: [CLI_BIN, path.dirname(process.execPath), '/usr/local/bin', '/usr/bin', '/bin'].join(path.delimiter),
    HOME: home,
    // Gemini CLI writes an error report per failed API call into os.tmpdir().
    TMPDIR: tmp,
    LANG: 'C.UTF-8',
    NO_COLOR: '1',
  };
  if (agent === 'claude') {
    // Turns off the auto-updater, telemetry and error reporting: no traffic beyond the server.
    Object.assign(env, { ANTHROPIC_BASE_URL: url, CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' });
    if (!retries) env.CLAUDE_CODE_MAX_RETRIES = '0';
    if (key && options.subscription) env.CLAUDE_CODE_OAUTH_TOKEN = 'sk-ant-oat01-fake';
    else if (key) env.ANTHROPIC_API_KEY = 'sk-fake';
  } else if (agent === 'codex') {
    // A custom provider, because only it can turn off the WebSocket transport (6 s of retries first).
    mkdirSync(path.join(home, '.codex'));
    writeFileSync(
      path.join(home, '.codex', 'config.toml'),
      [
        'model_provider = "fake"',
        'check_for_update_on_startup = false',
        '[analytics]',
        'enabled = false',
        '[features]',
        'plugins = false',
        'remote_plugin = false',
        'apps = false',
        '[model_providers.fake]',
        'name = "fake"',
        `base_url = "${url}/v1"`,
        'env_key = "OPENAI_API_KEY"',
        'wire_api = "responses"',
        'supports_websockets = false',
        ...(retries ? [] : ['request_max_retries = 0', 'stream_max_retries = 0']),
        '',
      ].join('\n'),
    );
    if (key) env.OPENAI_API_KEY = 'sk-fake';
  } else {
    // The auth type must be named: with GOOGLE_GEMINI_BASE_URL set, gemini would pick one it then rejects (exit 41).
    // Folder trust is left on, as a user has it: the preset's --skip-trust must cope.
    mkdirSync(path.join(home, '.gemini'));
    writeFileSync(
      path.join(home, '.gemini', 'settings.json'),
      JSON.stringify({
        security: { auth: { selectedType: 'gemini-api-key' } },
        general: { enableAutoUpdate: false, enableAutoUpdateNotification: false, ...(!retries && { maxAttempts: 1 }) },
        privacy: { usageStatisticsEnabled: false },
        telemetry: { enabled: false },
      }),
    );
    env.GOOGLE_GEMINI_BASE_URL = url;
    if (key) env.GEMINI_API_KEY = 'fake';
  }
  return env;
}

/** Start the built kanban-supervisor with exactly `env` (nothing inherited) and stdin closed; never rejects. */
export function startSupervisor(args: string[], env: Record<string, string>, cwd: string, timeoutMs = 150_000) {
  return execa(process.execPath, [CLI, ...args], {
    cwd,
    env,
    extendEnv: false,
    stdin: 'ignore',
    reject: false,
    timeout: timeoutMs,
  });
}

/**
 * Start the built kanban-supervisor like startSupervisor, but on a pseudo-terminal of its own
 * (util-linux `script`), as a person runs it: the agents must still get no terminal. The
 * supervisor's stdout and stderr both arrive on the result's stdout.
 */
export function startSupervisorOnTerminal(
  args: string[],
  env: Record<string, string>,
  cwd: string,
  timeoutMs = 150_000,
) {
  const command = ['exec', process.execPath, CLI, ...args].join(' ');
  return execa('script', ['-qfec', command, '/dev/null'], {
    cwd,
    env: { ...env, TERM: 'dumb' },
    extendEnv: false,
    stdin: 'ignore',
    reject: false,
    timeout: timeoutMs,
  });
}

/** `init --agent <agent>` into a temp folder, then a second task, run by the Architect, so every preset role runs. */
export async function initBoard(agent: AgentCli, env: Record<string, string>): Promise<string> {
  const dir = path.join(tempDir('ks-board-'), 'board');
  const result = await startSupervisor(['init', dir, '--agent', agent], env, ROOT);
  if (result.exitCode !== 0) throw new Error(`init --agent ${agent} failed: ${result.stderr}`);
  writeFileSync(
    path.join(dir, 'tasks', '002-review.md'),
    '---\ntitle: Review the example\nrole: Architect\n---\nCheck that hello.txt says hello.\n',
  );
  editBoard(dir, (text) =>
    text.replace('  - tasks/001-example.md\n', '  - tasks/001-example.md\n  - tasks/002-review.md\n'),
  );
  return dir;
}

/** Rewrite the board's kanban.yaml, failing if the edit changed nothing. */
/**
 * The other Manager `init` offers: the model on every step (the shipped sequential Manager taken out of
 * the command, as the preset's comment says), for the tests of what a model Manager answers to an ok reply.
 */
export function modelOnEveryStep(dir: string): void {
  const file = path.join(dir, 'roles', 'manager.md');
  const before = readFileSync(file, 'utf8');
  const after = before.replace('command: [node, "{{agents}}/sequential-manager.js", --, ', 'command: [');
  if (after === before) throw new Error(`${file} has no sequential Manager in front of its model`);
  writeFileSync(file, after);
}

export function editBoard(dir: string, edit: (text: string) => string): void {
  const file = path.join(dir, 'kanban.yaml');
  const before = readFileSync(file, 'utf8');
  const after = edit(before);
  if (after === before) throw new Error(`the edit of ${file} changed nothing:\n${before}`);
  writeFileSync(file, after);
}

/** One role prompt the fake model received, and what its file tool returned (Implementor only). */
export interface SeenPrompt {
  role: string;
  prompt: string;
  toolResult?: string;
}

/** The file the scripted Implementor writes with the CLI's own file tool, as the example task asks. */
export const HELLO = { file: 'hello.txt', content: 'hello from kanban-supervisor\n' };

/** What the scripted model has a worker reply, with characters that must pass through untouched. */
export function workerReply(role: string, task: string): { status: 'ok'; message: string } {
  return { status: 'ok', message: `${role} finished ${task} — "quoted", tab\there, ünïcødé` };
}

const PROMPT_MARK = /You are the (Manager|Implementor|Architect)\b/;

/**
 * The fake model's answers, computed from the role prompt in the request, as a model following
 * the preset prompts would. The Implementor first writes HELLO into `board.dir` with the CLI's
 * own file tool (so the preset's permission flags must let it, without a prompt), then reports.
 * A worker reports on its task in a ```json block after some prose; the Manager takes the task
 * list and the task just done from its prompt and names the next task (null after the last).
 * Every prompt seen is pushed to `seen`.
 */
export function scriptedModel(
  seen: SeenPrompt[],
  board: { dir?: string } = {},
): (request: ModelRequest) => string | WriteTurn {
  return ({ body, toolResult }) => {
    const prompt = strings(body).find((s) => PROMPT_MARK.test(s));
    if (!prompt) return 'I was not given a kanban-supervisor role prompt.';
    const role = (PROMPT_MARK.exec(prompt) as RegExpExecArray)[1] as string;
    if (toolResult !== undefined) (seen.at(-1) as SeenPrompt).toolResult = toolResult;
    else seen.push({ role, prompt });
    if (role === 'Implementor' && board.dir && toolResult === undefined)
      return { write: { file: path.join(board.dir, HELLO.file), content: HELLO.content } };
    if (role !== 'Manager') {
      const task = /described in (\S+?)[.:]?\s/.exec(prompt)?.[1] ?? '?';
      return (
        `I read ${task} and did the work.\n\n\`\`\`json\n${JSON.stringify(workerReply(role, task), null, 2)}\n` +
        `\`\`\`\n`
      );
    }
    // The presets' prompt names kanban.yaml for the list (a model reads it there); older prompts held it.
    const shown = /^Task list, in order: (.*)$/m.exec(prompt)?.[1];
    const tasks = shown
      ? (JSON.parse(shown) as string[])
      : [...readFileSync(path.join(board.dir ?? '.', 'kanban.yaml'), 'utf8').matchAll(/^ {2}- (\S+)$/gm)].map(
          (m) => m[1] as string,
        );
    const done = /^Task just worked on: (.*)$/m.exec(prompt)?.[1] ?? '';
    const next = tasks[tasks.indexOf(done) + 1] ?? null;
    const reply = {
      status: 'ok',
      message: `${done} is done; next is ${next ?? 'nothing'}`,
      next_task: next,
      tasks,
      ...(next === null && { phase: 'complete' }),
    };
    return `Decided.\n\n\`\`\`json\n${JSON.stringify(reply)}\n\`\`\`\n`;
  };
}

// Every string inside a request body: where each vendor puts the user's prompt differs.
function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (value && typeof value === 'object') return Object.values(value).flatMap(strings);
  return [];
}

/** A process seen during a run: its pid, command line and controlling terminal (0 for none). */
export interface SeenProcess {
  pid: number;
  cmdline: string;
  tty: number;
}

/**
 * Watch a running supervisor: every 20 ms, record each process in its process tree and each
 * process whose working folder is the board (the agents and whatever they start), until `done`.
 */
export async function watchProcesses(
  supervisorPid: number,
  boardDir: string,
  done: Promise<unknown>,
): Promise<SeenProcess[]> {
  const seen = new Map<number, SeenProcess>();
  let finished = false;
  void done.finally(() => {
    finished = true;
  });
  while (!finished) {
    // Read again each time: between fork and exec a child still shows its parent's command line.
    // A process gone meanwhile (no stat) or a zombie (no command line) keeps what was last read.
    for (const pid of [...descendants(supervisorPid), ...processesIn(boardDir)]) {
      const terminal = tty(pid);
      const line = cmdline(pid);
      if (terminal === undefined || (!line && seen.has(pid))) continue;
      seen.set(pid, { pid, cmdline: line, tty: terminal });
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return [...seen.values()];
}

function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ');
  } catch {
    return '';
  }
}

// Field 7 of /proc/PID/stat, tty_nr: the controlling terminal's device number, 0 for none;
// undefined once the process is gone.
function tty(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[4]);
  } catch {
    return undefined;
  }
}
