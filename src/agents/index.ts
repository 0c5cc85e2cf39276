import path from 'node:path';
import { matchPatterns } from '../reply/failure-patterns.js';
import { isObject, parse, stdoutEvents } from '../reply/json.js';
import type { AgentCli, FailedAttempt, Failure, FailureContext, Stream } from './adapter.js';
import { claude } from './claude.js';
import { codex } from './codex.js';
import { gemini } from './gemini.js';
import { genericAgent } from './generic.js';

/** The agent CLIs known by name, in the order `output: auto` tries their envelopes. */
export const AGENTS: readonly AgentCli[] = [claude, codex, gemini];

// Any other command; reads what is read by format in each known CLI's format (see generic.ts).
const GENERIC = genericAgent(AGENTS);

const LAUNCHERS: ReadonlySet<string> = new Set([
  'npx',
  'bunx',
  'pnpx',
  'env',
  'exec',
  'dlx',
  'pnpm',
  'yarn',
  'npm',
  'node',
  'bun',
]);

/**
 * The adapter of the CLI a role's argv runs: its program, resolved through launchers (npx, bunx,
 * pnpm dlx, env, node <script>, the shipped Manager's `-- CLI …`) and npm package names
 * (`@openai/codex@0.1`), names a known CLI; anything else — a wrapper script included — gets
 * the generic adapter. This is the only place that decides which CLI ran; output is never sniffed
 * for it.
 */
export function agentFor(command: readonly string[]): AgentCli {
  const program = programWord(command);
  return (program && AGENTS.find((agent) => agent.recognise(program.base) || agent.recognise(program.name))) || GENERIC;
}

/**
 * The name of the program a role's argv runs, behind any launcher
 * (`node wrapper.mjs` → wrapper): the generic adapter's CLI in an account.
 */
export function programOf(command: readonly string[]): string {
  return programWord(command)?.base ?? path.basename(command[0] ?? 'agent');
}

/**
 * The first of the first four words that names a program, and its index: anything but a launcher,
 * a flag or a VAR=value (no known CLI is one).
 */
export function programWord(command: readonly string[]): { name: string; base: string; index: number } | undefined {
  for (const [index, word] of command.slice(0, 4).entries()) {
    const name = word.replace(/@[^/@]*$/, '');
    const base = path.basename(name).replace(/\.(exe|cmd|js|mjs)$/, '');
    if (LAUNCHERS.has(base) || word.startsWith('-') || word.includes('=')) continue;
    // The shipped Manager asks the model CLI given after its `--` (sequential-manager.ts): that CLI's run
    // is the role's model run, its output read (limits, spend, schema) as the CLI's own.
    const cut = base === MODEL_LAUNCHER ? command.indexOf('--', index) : -1;
    const model = cut < 0 ? undefined : programWord(command.slice(cut + 1));
    return model ? { ...model, index: model.index + cut + 1 } : { name, base, index };
  }
  return undefined;
}

const MODEL_LAUNCHER = 'sequential-manager';

/**
 * Classify an attempt that gave no valid reply (SPEC §4b): the role's `failures:` patterns first,
 * then its CLI's adapter. Pure: the clock and zone come in `context`.
 */
export function classifyFailure(attempt: FailedAttempt, context: FailureContext): Failure {
  const agent = agentFor(context.command);
  return withoutLogin(
    byPatterns(attempt.stdout, attempt.stderr, agent, context) ??
      agent.failure({ ...attempt, events: attempt.events ?? stdoutEvents(attempt.stdout) }, context),
    agent,
    context,
  );
}

// A service that cannot be reached by an agent with no login at all: the login is what a person must fix.
function withoutLogin<F extends Failure | undefined>(
  failure: F,
  agent: AgentCli,
  context: FailureContext,
): F | Failure {
  if (failure?.kind !== 'transient' || context.noLogin === undefined) return failure;
  return {
    kind: 'login',
    cli: failure.cli,
    detail: `${context.noLogin} (it said: ${failure.detail})`,
    hint: agent.loginHint ?? `Log in to ${failure.cli}.`,
  };
}

/**
 * A failure a line of a running agent already shows (pure): a stderr line its role's patterns
 * match, else what its adapter reads in the line.
 */
export function failureInLine(line: string, stream: Stream, context: FailureContext): Failure | undefined {
  const agent = agentFor(context.command);
  return withoutLogin(
    (stream === 'stderr' ? byPatterns('', line, agent, context) : undefined) ?? agent.failureInLine?.(line, stream),
    agent,
    context,
  );
}

function byPatterns(stdout: string, stderr: string, agent: AgentCli, context: FailureContext): Failure | undefined {
  const match = context.patterns && matchPatterns(stdout, stderr, context.patterns, context.timeZone, context.now);
  if (!match) return undefined;
  const cli = agent === GENERIC ? path.basename(context.command[0] ?? 'agent') : agent.name;
  const { kind, line: detail } = match;
  if (kind === 'usage_limit') return { kind, cli, detail, resetAt: match.resetAt };
  if (kind === 'transient') return { kind, cli, detail };
  return { kind, cli, detail, hint: context.patterns?.login_hint ?? agent.loginHint ?? `Log in to ${cli}.` };
}

// Longer lines are not parsed: a JSON line this long is a tool result or a whole file, neither
// of which a status line shows, and parsing it per output line would cost more than it shows.
const PARSE_MAX = 256 * 1024;
// What a status line could show at most; the reporter cuts to the terminal's width.
export const SHOWN_MAX = 300;
// Events that never show anything and can be long (tool results, partial deltas): skipped unparsed.
const SILENT = new RegExp(
  `^\\{\\s*"type"\\s*:\\s*"(?:${GENERIC.silent.map((type) => type.replaceAll('.', '\\.')).join('|')})"`,
);

/**
 * What one line of an agent's stdout shows in a live status line, read by its CLI's adapter
 * (undefined: nothing); a line that is not JSON as it is. Pure; the caller cleans it for a terminal,
 * masks it and cuts it to `SHOWN_MAX` (in that order: a secret cut in two would not be masked).
 */
export function activityOf(line: string, agent: AgentCli, cwd?: string): string | undefined {
  const text = line.trim();
  if (text === '') return undefined;
  if (!text.startsWith('{')) return text;
  if (text.length > PARSE_MAX || SILENT.test(text)) return undefined;
  const event = parse(text);
  if (!isObject(event)) return text;
  return agent.activity(event, cwd) || undefined;
}
