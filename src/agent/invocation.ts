import { AGENTS_DIR, fillPlaceholders, type AgentInputs } from '../board/inputs.js';
import type { Role } from '../board/role.js';
import { TAG_VARIABLE } from './tag.js';
import { maskArgv, secretValues } from '../util/secrets.js';
import type { FailurePatterns } from '../reply/failure-patterns.js';
import type { AcpSpec } from '../acp/messages.js';
import { DEFAULT_POLICY } from '../acp/policy.js';

/**
 * Everything that defines one run of an agent. Built once per agent run and reused
 * for every retry, so a retry gets byte-identical argv, stdin, environment and cwd.
 */
export interface Invocation {
  role: string;
  roleFile: string;
  /** The fallback role whose file runs this role's step (SPEC §5c), when it is not the role's own. */
  agent?: string;
  file: string;
  args: readonly string[];
  /** Bytes written to stdin then closed, or null for /dev/null. */
  stdin: Buffer | null;
  env: Readonly<Record<string, string>>;
  cwd: string;
  timeoutMs: number;
  idleTimeoutMs: number | null;
  /** SIGTERM → SIGKILL grace period. */
  killGraceMs: number;
  /** The value of TAG_VARIABLE this agent run's processes inherit: the same for every retry. */
  tag: string;
  /** The task the agent works on (the done task, for the Manager), for the agent record. */
  task: string;
  /**
   * The program the agent runs under, put there by a transform (agent/prepare.ts): a fenced role's
   * bubblewrap; `file`/`args` stay the agent's own, for messages.
   */
  wrap?: Wrapper;
  /** The role's `failures:` patterns, read from its stderr while it runs (attempt.ts). */
  failures?: FailurePatterns;
  /**
   * `protocol: acp`: the agent is spoken to over its stdin and stdout (src/acp/), told this;
   * `stdin` is then null (the pipe carries the protocol).
   */
  acp?: AcpSpec;
}

/**
 * A program an agent's own argv is started under (a fence's bubblewrap): its argv put before the
 * agent's, the bytes it reads from file descriptor 3, the files opened afresh for each attempt that
 * it reads from 4, 5, … (copy-fds.ts), and the host user to start it as when not the supervisor's own.
 */
export interface Wrapper {
  program: string;
  args: readonly string[];
  fd3?: Uint8Array;
  files?: readonly string[];
  user?: { uid: number; gid: number };
}

const MAX_ENV_INPUT = 64 * 1024;

/** Timeouts that apply to one agent run, already resolved from role, flags and board. */
export interface Limits {
  timeoutMs: number;
  idleTimeoutMs: number | null;
  killGraceMs: number;
}

/** Where and how one agent run happens: the board folder, the inherited environment, its limits and tag. */
export interface RunPlace {
  boardDir: string;
  env: NodeJS.ProcessEnv;
  limits: Limits;
  /** This agent run's tag (tag.ts), already under any tag this supervisor inherited. */
  tag: string;
}

/** Build the invocation of a role's agent for these inputs (pure: the environment is passed in). */
export function buildInvocation(
  role: Role,
  inputs: AgentInputs,
  place: RunPlace & { own?: readonly string[] },
): Invocation {
  const baseEnv = place.env;
  const prompt = fillPlaceholders(role.prompt, { ...inputs, agents: AGENTS_DIR }, role.file);
  const values = { ...inputs, prompt, agents: AGENTS_DIR };
  const [file, ...args] = role.command.map((part) => fillPlaceholders(part, values, role.file)) as [
    string,
    ...string[],
  ];
  const json = JSON.stringify(inputs);
  // One environment string may not exceed 128 KiB on Linux (E2BIG): see boundedEnvInput.
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(baseEnv)) if (value !== undefined) env[key] = value;
  Object.assign(env, role.env, {
    [TAG_VARIABLE]: place.tag,
    KANBAN_ROLE: inputs.role,
    KANBAN_FILE: inputs.kanban_file,
    KANBAN_TASK_FILE: inputs.task_file ?? '',
    KANBAN_DONE_TASK: inputs.done_task ?? '',
    ...(inputs.trigger !== undefined && { KANBAN_TRIGGER: inputs.trigger }),
  });
  const envInput = boundedEnvInput(inputs, json);
  if (envInput.length <= MAX_ENV_INPUT) env.KANBAN_INPUT = envInput;
  else delete env.KANBAN_INPUT;
  const acp = role.protocol === 'acp';
  const stdin = acp || role.stdin === 'none' ? null : Buffer.from(role.stdin === 'json' ? `${json}\n` : prompt, 'utf8');
  const task = inputs.task_file ?? inputs.done_task ?? '';
  return {
    role: role.name,
    roleFile: role.file,
    file,
    args,
    stdin,
    env,
    cwd: place.boardDir,
    ...place.limits,
    tag: place.tag,
    task,
    ...(role.failures && { failures: role.failures }),
    ...(acp && {
      acp: {
        prompt,
        cwd: place.boardDir,
        mcpServers: role.mcpServers ?? [],
        permissions: role.permissions ?? DEFAULT_POLICY,
        own: [...(place.own ?? [])],
      },
    }),
  };
}

/**
 * KANBAN_INPUT within its 64 KiB: a history that would make it too long is left out of it, then the
 * task list (a board of thousands of tasks: it is kanban.yaml's `tasks`), each saying so and where to
 * read it; a huge result leaves it out altogether (stdin and the placeholders still have everything).
 */
function boundedEnvInput(inputs: AgentInputs, json: string): string {
  if (json.length <= MAX_ENV_INPUT) return json;
  const { history, tasks } = inputs;
  const less: Record<string, unknown> = { ...inputs };
  if (history) {
    less.history = undefined;
    less.history_omitted =
      `${history.length} step(s), over the 64 KiB of KANBAN_INPUT: read stdin (stdin: ` + `json) or {{history}}`;
    const shorter = JSON.stringify(less);
    if (shorter.length <= MAX_ENV_INPUT) return shorter;
  }
  if (tasks) {
    less.tasks = undefined;
    less.tasks_omitted =
      `${tasks.length} task(s), over the 64 KiB of KANBAN_INPUT: they are the tasks of ` + `${inputs.kanban_file}`;
  }
  return JSON.stringify(less);
}

/**
 * What is spawned: the agent's own argv, or the wrapper's with the agent's after it (a fenced role's
 * bubblewrap), with the bytes to hand it on descriptor 3 (the fence's seccomp filter) and the host user to start it as.
 */
export function spawnCommand(invocation: Pick<Invocation, 'file' | 'args' | 'wrap'>): {
  file: string;
  args: readonly string[];
  seccomp?: Uint8Array;
  user?: { uid: number; gid: number };
} {
  const { wrap } = invocation;
  if (!wrap) return { file: invocation.file, args: invocation.args };
  return {
    file: wrap.program,
    args: [...wrap.args, invocation.file, ...invocation.args],
    ...(wrap.fd3 && { seccomp: wrap.fd3 }),
    ...(wrap.user && { user: wrap.user }),
  };
}

/**
 * The command as a person would type it, for messages and events (`claude -p …`), secrets masked (util/secrets.ts).
 */
export function describeCommand(
  invocation: Pick<Invocation, 'file' | 'args'> & { env?: Invocation['env'] },
  max = 60,
): string {
  const text = maskArgv([invocation.file, ...invocation.args], secretValues(invocation.env ?? {}))
    .map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : JSON.stringify(a)))
    .join(' ');
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
