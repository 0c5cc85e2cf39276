import { formatDuration } from '../util/duration.js';
import { cleanBlock, cleanLine } from '../util/clean-text.js';
import { maskedHead, maskedTail } from '../util/secrets.js';
import type { AttemptResult } from '../agent/attempt.js';
import { extractReply, type Envelope, type OutputStrategy } from '../reply/extract.js';
import { checkReply, type ReplyRules } from '../reply/check-reply.js';

/** An attempt's reply if it is valid, else why not and what was received (bounded, for the log). */
export type Judgement =
  { valid: true; reply: Record<string, unknown>; via: string } | { valid: false; issue: string; received: string };

const RECEIVED_MAX = 4000;

/**
 * Judge an attempt by the format of its output only (the agent CLIs'
 * envelopes given); the exit code alone never decides (SPEC §3).
 */
export function judgeAttempt(
  result: AttemptResult,
  output: OutputStrategy,
  rules: ReplyRules,
  limits: { timeoutMs: number; idleTimeoutMs: number | null },
  envelopes: readonly Envelope[],
  /** The run's secret values: masked in what is received and quoted before either is cut. */
  secrets: readonly string[] = [],
): Judgement {
  const killed = `was killed with ${result.killedWith ?? 'SIGTERM'}`;
  if (result.end === 'timeout')
    return invalid(`timed out after ${formatDuration(limits.timeoutMs)} and ${killed}`, result, secrets);
  if (result.end === 'idle-timeout')
    return invalid(
      `printed nothing for ${formatDuration(limits.idleTimeoutMs ?? 0)} (idle_timeout) and ${killed}`,
      result,
      secrets,
    );
  if (result.end === 'spawn-failed')
    return invalid(`could not be started: ${result.spawnError ?? 'unknown error'}`, result, secrets);
  if (result.end === 'gave-up') {
    const said =
      result.failure && 'detail' in result.failure ? `as ${result.failure.cli}: ${result.failure.detail}` : 'a failure';
    return invalid(`reported an error ${said}; stopped rather than left to retry it`, result, secrets);
  }
  const extraction = extractReply(result.stdout, output, envelopes, (reply) => checkReply(reply, rules).valid);
  if (!extraction.found)
    return invalid(
      `${extraction.issue}${truncatedNote(result)}${exitNote(result)}${stderrNote(result, secrets)}`,
      result,
      secrets,
    );
  const verdict = checkReply(extraction.reply, rules);
  if (!verdict.valid) {
    return {
      valid: false,
      issue: `replied in the wrong format: ${verdict.issues.slice(0, 3).join('; ')}`,
      received: bounded(safeStringify(extraction.reply), secrets),
    };
  }
  return { valid: true, reply: extraction.reply, via: extraction.via };
}

function invalid(issue: string, result: AttemptResult, secrets: readonly string[]): Judgement {
  return { valid: false, issue, received: receivedText(result, secrets) };
}

// Only the end of a long stdout is kept; a reply that began before it cannot be found.
function truncatedNote(result: AttemptResult): string {
  if (!result.stdoutTruncated) return '';
  return (
    ` (only the last ${Math.round(Buffer.byteLength(result.stdout) / 1024)} KiB of its ${result.stdoutBytes} bytes ` +
    `of stdout were searched; the reply must come last)`
  );
}

// Many CLIs say why they failed on stderr only (Gemini CLI with no key): the reason must show.
// A crash's stack trace ends in frames (`at async ModuleLoader…`); its error line says why.
// Else the lines that read like the error, not a summary after it (Copilot's stats footer).
function stderrNote(result: AttemptResult, secrets: readonly string[]): string {
  const lines = result.stderrTail.split('\n').map(cleanLine);
  const error = crashLine(lines.filter((line) => line !== ''));
  if (error !== undefined) return `; stderr: ${maskedHead(error, 300, secrets)} (then a stack trace)`;
  const quoted = errorLines(lines);
  return quoted.length ? `; stderr: ${maskedHead(quoted.join(' / '), 300, secrets)}` : '';
}

const ERROR_WORDS = new RegExp(
  String.raw`\b(?:error|fail(?:ed|ure|s)?|fatal|denied|unauthori[sz]ed|forbidden|invalid|refused|exceed(?:s|ed)?|` +
    String.raw`not found|cannot|can't|could not|unable|missing|rejected|expired|timed? ?out|quota|rate.?limit|` +
    String.raw`overloaded|unavailable)\b|\b(?:HTTP|status):? ?[45]\d\d\b|^[45]\d\d\b`,
  'i',
);

/**
 * The last stderr line that reads like an error and the rest of its paragraph (3 lines at most),
 * else the last 3 lines (pure).
 */
export function errorLines(lines: readonly string[]): string[] {
  const last = lines.findLastIndex((line) => ERROR_WORDS.test(line));
  if (last < 0) return lines.filter((line) => line !== '').slice(-3);
  const end = lines.findIndex((line, i) => i > last && line === '');
  return lines.slice(last, end < 0 ? undefined : end).slice(0, 3);
}

/**
 * The error line of a stack trace in an agent's stderr (pure), if it holds one: the line above the
 * last run of JavaScript frames (`at …:3:5`), or the last line of a Python traceback.
 */
export function crashLine(lines: readonly string[]): string | undefined {
  // Lines come trimmed: a frame is `at <function> (<file>:<line>:<col>)` or `at <file>:<line>:<col>`.
  const frame = (line: string) => /^at\s.*(:\d+:\d+\)?|\(native\)|\(<anonymous>\))$/.test(line.trim());
  for (let i = lines.length - 1; i > 0; i--) {
    if (frame(lines[i] as string) && !frame(lines[i - 1] as string)) return (lines[i - 1] as string).trim();
  }
  const traceback = lines.findLastIndex((line) => line.startsWith('Traceback (most recent call last)'));
  if (traceback < 0) return undefined;
  return lines.slice(traceback + 1).findLast((line) => /^\S/.test(line));
}

function exitNote(result: AttemptResult): string {
  if (result.signal) return ` (the agent was ended by ${result.signal})`;
  if (result.exitCode !== null && result.exitCode !== 0) return ` (exit code ${result.exitCode})`;
  return '';
}

function receivedText(result: AttemptResult, secrets: readonly string[]): string {
  if (result.stdout.trim() === '') {
    const stderr = result.stderrTail.trim();
    return stderr
      ? `(stdout was empty; stderr ends with:)\n${bounded(stderr, secrets)}`
      : '(nothing on stdout or stderr)';
  }
  const head =
    result.stdoutTruncated || result.stdout.length > RECEIVED_MAX
      ? `(last ${RECEIVED_MAX} characters of ${result.stdoutBytes} bytes of stdout)\n`
      : '';
  return head + bounded(result.stdout, secrets);
}

// The log is read in a terminal: an agent's NUL bytes or escape sequences must not reach it, nor
// part of a secret the cut would have split (masked first, then cut).
function bounded(text: string, secrets: readonly string[]): string {
  return cleanBlock(maskedTail(text, RECEIVED_MAX, secrets));
}

function safeStringify(value: unknown): string {
  try {
    return JSON.stringify(value, null, 2);
  } catch {
    return String(value);
  }
}
