import { parseResetText } from './reset-time.js';

/**
 * Front-matter `failures:` of a role file: how to tell a failed attempt of a CLI kanban-supervisor
 * has no built-in knowledge of (or a wrapper around one it has) from invalid output. Each entry is a
 * JavaScript regular expression, matched case-insensitively with `^`/`$` at line ends against the
 * attempt's stderr and the last lines of its stdout. In `usage_limit`, a named group `reset` may
 * capture when the limit resets (see parseResetText).
 */
export interface FailurePatterns {
  /** A usage or rate limit: the attempt is re-run after the reset. */
  usage_limit?: string[];
  /** A login that is missing or rejected: the run stops for a person. */
  login?: string[];
  /** A passing service failure (overloaded, 5xx, network): the attempt is re-run after a back-off. */
  transient?: string[];
  /** How a person logs in to this CLI, shown when a `login` pattern matches. */
  login_hint?: string;
}

/** Which of a role's patterns matched a failed attempt, with the matching line and the reset it captured. */
export interface PatternMatch {
  kind: 'usage_limit' | 'login' | 'transient';
  line: string;
  resetAt: Date | null;
}

const KINDS = ['login', 'usage_limit', 'transient'] as const;
// Only the end of stdout is the CLI's own closing message; earlier lines are the agent's transcript.
const STDOUT_LINES = 20;
const TEXT_MAX = 16 * 1024;

/** Every pattern that is not a valid regular expression, as `failures.<kind>[i]: <why>` (pure). */
export function patternProblems(patterns: FailurePatterns): string[] {
  return KINDS.flatMap((kind) =>
    (patterns[kind] ?? []).flatMap((source, i) => {
      const pattern = compile(source);
      return typeof pattern === 'string' ? [`failures.${kind}[${i}]: ${pattern}`] : [];
    }),
  );
}

/**
 * The first pattern kind that matches the attempt's stderr or the end of its stdout, checked in
 * the order login, usage_limit, transient (a person is the safest answer when several match).
 * An invalid pattern never matches; patternProblems reports it.
 */
export function matchPatterns(
  stdout: string,
  stderr: string,
  patterns: FailurePatterns,
  timeZone: string,
  now: Date,
): PatternMatch | undefined {
  const text = `${stderr.slice(-TEXT_MAX)}\n${stdout.slice(-TEXT_MAX).split('\n').slice(-STDOUT_LINES).join('\n')}`;
  for (const kind of KINDS) {
    for (const source of patterns[kind] ?? []) {
      const pattern = compile(source);
      const match = typeof pattern === 'string' ? null : pattern.exec(text);
      if (!match) continue;
      const reset = match.groups?.reset;
      const line = lineAround(text, match.index);
      return { kind, line, resetAt: reset ? parseResetText(reset, timeZone, now) : null };
    }
  }
  return undefined;
}

// The pattern, or why it is not a valid regular expression.
function compile(source: string): RegExp | string {
  try {
    return new RegExp(source, 'imu');
  } catch (error) {
    return (error as Error).message;
  }
}

function lineAround(text: string, index: number): string {
  const start = text.lastIndexOf('\n', index) + 1;
  const end = text.indexOf('\n', index);
  return text.slice(start, end === -1 ? undefined : end).trim();
}
