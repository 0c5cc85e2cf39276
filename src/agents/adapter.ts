import type { Envelope } from '../reply/extract.js';
import { firstLine, isObject } from '../reply/json.js';
import type { FailurePatterns } from '../reply/failure-patterns.js';
import type { Usage } from '../reply/usage.js';

/**
 * Why an attempt gave no valid reply (SPEC §4b), read from the CLI's own envelope and stderr.
 * Only `invalid` spends a format retry.
 * - usage_limit: temporary; `resetAt` when the CLI says when (the end of the minute it shows).
 * - login: needs a person: no login, a rejected key, or an account that cannot be used until
 *   someone acts (usage disabled by an admin, a plan without access); `hint` says what to do.
 * - transient: an overloaded or failing service, or no network.
 * - invalid: plain invalid output, or nothing recognised.
 */
export type Failure =
  | { kind: 'usage_limit'; cli: string; detail: string; resetAt: Date | null }
  | { kind: 'login'; cli: string; detail: string; hint: string }
  | { kind: 'transient'; cli: string; detail: string }
  | { kind: 'invalid' };

/** What classifyFailure reads of an attempt that gave no valid reply. */
export interface FailedAttempt {
  stdout: string;
  stderr: string;
  exitCode: number | null;
  /** The JSON objects of stdout (stdoutEvents), when the caller has them already. */
  events?: Record<string, unknown>[];
}

/** How to read a failed attempt: which CLI ran, the role's own patterns, and the clock and zone. */
export interface FailureContext {
  /** The role's argv; its program names a known CLI (see agentFor). */
  command: readonly string[];
  /** The role file's `failures:`, checked before the built-in knowledge. */
  patterns?: FailurePatterns | undefined;
  now: Date;
  /** The IANA zone the agent printed local times in (Codex: "try again at 7:13 PM"). */
  timeZone: string;
  /**
   * What shows the agent has no login at all (its adapter's `missingLogin`, read by the caller):
   * a failure to reach its service is then that missing login, not an outage to back off from.
   */
  noLogin?: string | undefined;
}

/**
 * Everything kanban-supervisor knows of one agent CLI. A new CLI is one of these in its own file,
 * listed in src/agents/index.ts, with a test on its recorded output.
 */
export interface AgentCli extends Envelope {
  /** Its name: the `output:` strategy naming its envelope, and the `cli` of its failures. */
  name: string;
  /** Whether a program (the base name behind any launcher, or an npm package name) is this CLI. */
  recognise(program: string): boolean;
  /** Event types of its stream that never show anything and can be long: skipped unparsed. */
  silent: readonly string[];
  /**
   * What one of its stdout events shows a person (file paths under
   * `cwd` relative to it); undefined: nothing; null: not its event.
   */
  activity(event: Record<string, unknown>, cwd?: string): string | undefined | null;
  /**
   * What `logs` shows of one of its stdout events: the model's text in full, a tool
   * call as `activity` words it; undefined: nothing; null: not its event.
   */
  transcript?(event: Record<string, unknown>, cwd?: string): Shown | undefined | null;
  /** The attempt's spend from its final totals, never a stream's running figures; undefined when none. */
  usage(events: Record<string, unknown>[]): Usage | undefined;
  /**
   * Classify a failed attempt (its stdout's JSON objects found once)
   * from its envelope and stderr, never from the agent's transcript.
   */
  failure(attempt: FailedAttempt & { events: Record<string, unknown>[] }, context: FailureContext): Failure;
  /** A failure one line of its running output already shows: the attempt is stopped then, not at its timeout. */
  failureInLine?(line: string, stream: Stream): Failure | undefined;
  /**
   * What shows, in the agent's environment and login folder, that it has no login at all
   * (undefined when it may have one). Codex offline without one only ever says it waits for the network.
   */
  missingLogin?(env: Readonly<Record<string, string | undefined>>): string | undefined;
  /**
   * What its login is read from in the agent's environment: a usage
   * limit belongs to that account (src/limits/account.ts).
   */
  login: LoginInputs;
  /** How a person logs in to it (a known CLI's; the generic one has none). */
  loginHint?: string;
  /** How one call of it is handed the role's reply schema and the most it may spend (call-options.ts). */
  calls?: CallOptions;
  /** Its folder under presets/, for `init --agent`. */
  preset?: string;
  /** How to get it ready to run unattended (installed, logged in), shown after `init`. */
  setup?: string;
}

/** The options the supervisor adds to a role's argv for one call of a CLI, where it takes them (call-options.ts). */
export interface CallOptions {
  /** The subcommand (any of these words) that must follow the program for it to take them. */
  subcommand?: readonly string[];
  /** Its option for the reply schema: the JSON itself or a file holding it; strict: OpenAI's strict form only. */
  schema?: { option: string; file: boolean; strict: boolean };
  /** Its option capping one call's spend, in US dollars. */
  budget?: string;
}

/** One of an agent's output streams. */
export type Stream = 'stdout' | 'stderr';

/**
 * A transcript's text for one event: whole lines, or a `piece` of a message
 * that the next piece continues on the same line (Gemini's `delta`).
 */
export type Shown = string | { piece: string };

/** How an adapter renders the model's text: one line for a status line, all of it for a transcript. */
export type TextRendering = (text: string | undefined) => string;

/** The model's text in full, without the blank end (a transcript's rendering). */
export function wholeText(text: string | undefined): string {
  return (text ?? '').trimEnd();
}

/** Where a CLI keeps its login: its config folder and the variables that can hold a key or token. */
export interface LoginInputs {
  /** `[variable, under]` pairs tried in order: the first variable set gives the folder `$variable/under`. */
  folder: ReadonlyArray<readonly [variable: string, under: string]>;
  /** Variables holding an API key or token; only a fingerprint of each one set enters the account, never the secret. */
  keys: readonly string[];
}

// The argument that says what a tool call does, by the names the CLIs give it.
const TOOL_ARGUMENT = [
  'command',
  'file_path',
  'absolute_path',
  'notebook_path',
  'path',
  'pattern',
  'url',
  'query',
  'description',
  'prompt',
];

/** A tool call as a status line shows it: "Bash: npm test", "Edit: src/app.ts", or the bare name. */
export function toolCall(name: string, input: unknown, cwd?: string): string {
  const key = TOOL_ARGUMENT.find((k) => typeof (isObject(input) ? input[k] : undefined) === 'string');
  const value = key && isObject(input) ? (input[key] as string) : '';
  return value ? `${name}: ${firstLine(/path$/.test(key as string) ? relativeTo(value, cwd) : value)}` : name;
}

/** A file path relative to `cwd` when it lies under it, else as it is. */
export function relativeTo(file: string, cwd?: string): string {
  if (!cwd) return file;
  const base = cwd.endsWith('/') ? cwd : `${cwd}/`;
  return file.startsWith(base) ? file.slice(base.length) : file;
}

/** The error an agent CLI reported in its own envelope, as the reply's issue. */
export function reported(cli: string, message: unknown): { error: string } {
  return { error: `reported an error as ${cli}: ${String(message).slice(0, 300)}` };
}
