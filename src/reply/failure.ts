import path from 'node:path';
import { stdoutEvents } from './events.js';
import { claudeFailure } from './failure-claude.js';
import { codexFailure, codexFailureInLine } from './failure-codex.js';
import { geminiFailure } from './failure-gemini.js';
import { matchPatterns, type FailurePatterns } from './failure-patterns.js';

/** The agent CLIs whose failures are recognised without any role-file patterns. */
export type KnownCli = 'claude' | 'codex' | 'gemini';

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

/** A failed attempt as the per-CLI classifiers read it: its stdout's JSON objects found once. */
export type ReadAttempt = FailedAttempt & { events: Record<string, unknown>[] };

/** How to read a failed attempt: which CLI ran, the role's own patterns, and the clock and zone. */
export interface FailureContext {
  /** The role's argv; its program (also behind npx, bunx, pnpm dlx, env) names a built-in CLI. */
  command: readonly string[];
  /** The role file's `failures:`, checked before the built-in knowledge. */
  patterns?: FailurePatterns | undefined;
  now: Date;
  /** The IANA zone the agent printed local times in (Codex: "try again at 7:13 PM"). */
  timeZone: string;
}

/** How a person logs in to each built-in CLI. */
export const LOGIN_HINTS: Readonly<Record<KnownCli, string>> = {
  claude: 'Run `claude` once and log in with /login, or set ANTHROPIC_API_KEY (in the environment or the role\'s env:).',
  codex: 'Run `codex login`, or set CODEX_API_KEY (in the environment or the role\'s env:).',
  gemini: 'Set GEMINI_API_KEY (in the environment or the role\'s env:), or run `gemini` once and choose a login.',
};

const PACKAGE_CLI: Record<string, KnownCli> = { '@anthropic-ai/claude-code': 'claude', '@openai/codex': 'codex', '@google/gemini-cli': 'gemini' };
const LAUNCHERS: ReadonlySet<string> = new Set(['npx', 'bunx', 'pnpx', 'env', 'exec', 'dlx', 'pnpm', 'yarn', 'npm', 'node', 'bun']);

/** The built-in CLI a role's argv runs (claude, codex or gemini, directly or through a launcher), if any. */
export function knownCli(command: readonly string[]): KnownCli | undefined {
  for (const word of command.slice(0, 4)) {
    const name = word.replace(/@[^/@]*$/, '');
    const base = path.basename(name).replace(/\.(exe|cmd|js|mjs)$/, '');
    if (base === 'claude' || base === 'codex' || base === 'gemini') return base;
    if (PACKAGE_CLI[name]) return PACKAGE_CLI[name];
    if (!LAUNCHERS.has(base) && !word.startsWith('-') && !word.includes('=')) return undefined;
  }
  return undefined;
}

/**
 * Classify an attempt that gave no valid reply from the CLI's own envelope (its error fields,
 * its final result) and stderr, never from the agent's transcript: text a tool printed, echoed in
 * the stream, must not look like a limit. Pure: the clock and zone come in `context`.
 */
export function classifyFailure(attempt: FailedAttempt, context: FailureContext): Failure {
  const cli = knownCli(context.command);
  const name = cli ?? path.basename(context.command[0] ?? 'agent');
  if (context.patterns) {
    const match = matchPatterns(attempt.stdout, attempt.stderr, context.patterns, context.timeZone, context.now);
    if (match?.kind === 'login') return { kind: 'login', cli: name, detail: match.line, hint: context.patterns.login_hint ?? (cli ? LOGIN_HINTS[cli] : `Log in to ${name}.`) };
    if (match?.kind === 'usage_limit') return { kind: 'usage_limit', cli: name, detail: match.line, resetAt: match.resetAt };
    if (match?.kind === 'transient') return { kind: 'transient', cli: name, detail: match.line };
  }
  const read = { ...attempt, events: attempt.events ?? stdoutEvents(attempt.stdout) };
  if (cli === 'claude') return claudeFailure(read, context);
  if (cli === 'codex') return codexFailure(read, context);
  if (cli === 'gemini') return geminiFailure(read, context);
  return { kind: 'invalid' };
}

/**
 * A failure one line of a running CLI's output already shows, so the attempt can be stopped at
 * once instead of at its timeout: Codex retrying a rejected login, or waiting for a network that
 * is not there (without a login and offline, it reconnects for ever). Pass each stdout line;
 * classify the whole attempt with classifyFailure once it has ended. Pure.
 */
export function failureInLine(line: string, command: readonly string[]): Failure | undefined {
  return knownCli(command) === 'codex' ? codexFailureInLine(line) : undefined;
}
