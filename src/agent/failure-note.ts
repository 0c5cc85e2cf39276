// What an attempt without a valid reply is said to have done, for the Retry Event and the log: the
// notes after the issue (stdout cut, the exit, stderr's error line) and what was received, each
// bounded, cleaned for a terminal and with the run's secrets masked (pure).
import type { AttemptResult } from './attempt.js';
import { cleanBlock, cleanLine } from '../util/clean-text.js';
import { maskedHead, maskedTail } from '../util/secrets.js';

/** What the notes read of an attempt's end. */
export type AttemptOutput = Pick<
  AttemptResult,
  'stdout' | 'stdoutTruncated' | 'stdoutBytes' | 'stderrTail' | 'exitCode' | 'signal'
>;

const RECEIVED_MAX = 4000;

// Only the end of a long stdout is kept; a reply that began before it cannot be found.
export function truncatedNote(result: AttemptOutput): string {
  if (!result.stdoutTruncated) return '';
  return (
    ` (only the last ${Math.round(Buffer.byteLength(result.stdout) / 1024)} KiB of its ${result.stdoutBytes} bytes ` +
    `of stdout were searched; the reply must come last)`
  );
}

// Many CLIs say why they failed on stderr only (Gemini CLI with no key): the reason must show.
// A crash's stack trace ends in frames (`at async ModuleLoader…`); its error line says why.
// Else the lines that read like the error, not a summary after it (Copilot's stats footer).
export function stderrNote(result: AttemptOutput, secrets: readonly string[]): string {
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

export function exitNote(result: AttemptOutput): string {
  if (result.signal) return ` (the agent was ended by ${result.signal})`;
  if (result.exitCode !== null && result.exitCode !== 0) return ` (exit code ${result.exitCode})`;
  return '';
}

export function receivedText(result: AttemptOutput, secrets: readonly string[]): string {
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

/** A reply in the wrong format as received: its JSON, bounded. */
export function receivedReply(reply: unknown, secrets: readonly string[]): string {
  return bounded(safeStringify(reply), secrets);
}

function safeStringify(value: unknown): string {
  try {
    return JSON.stringify(value, null, 2);
  } catch {
    return String(value);
  }
}
