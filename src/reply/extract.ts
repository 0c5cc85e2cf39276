import { isObject, ParsedOutput, tryParse } from './json.js';
import { lastObject } from './last-object.js';

/**
 * What an agent CLI's own JSON envelope says: the model's final text (or an object
 * reply it carries), or the error it reports. Exit codes of these CLIs lie both ways,
 * so the envelope is read first.
 */
export type Unwrapped = { text: string } | { reply: Record<string, unknown> } | { error: string };

/** A known agent CLI's output format (the adapters of src/agents/ are these). */
export interface Envelope {
  name: string;
  /** Unwrap stdout, or return null when stdout is not in this CLI's format. */
  unwrap(out: ParsedOutput): Unwrapped | null;
}

/**
 * How the reply is found in stdout: auto, whole, fenced, last-line,
 * or an agent CLI's envelope by name (see role.schema.json).
 */
export type OutputStrategy = string;

/** The reply candidate found in stdout (not yet validated), or why none was found. */
export type Extraction = { found: true; reply: Record<string, unknown>; via: string } | { found: false; issue: string };

const GENERIC: Record<'whole' | 'fenced' | 'last-line', (out: ParsedOutput) => Record<string, unknown> | undefined> = {
  // JSON.parse allows JSON's own white space around the value; trim() also drops others (a BOM).
  whole: (out) => asObject(out.whole ?? tryParseTrimmed(out.text)),
  fenced: (out) => lastFencedJson(out.text),
  'last-line': (out) => lastJsonLine(out.text),
};

// A wrapper's text may itself be a wrapper (an agent wrapping another); a few levels suffice.
const MAX_DEPTH = 4;

function tryParseTrimmed(text: string): unknown {
  const trimmed = text.trim();
  return trimmed === text ? undefined : tryParse(trimmed);
}

/** Whether a reply candidate passes the role's reply schema (the supervisor's own check, SPEC §3). */
export type Accepts = (reply: Record<string, unknown>) => boolean;

/**
 * Find the reply object in an agent's stdout using the role's `output` strategy (SPEC §3), given
 * the known envelopes in the order `auto` tries them. `auto` prefers a candidate that `accepts`
 * takes: the last ```json block, the last JSON line, then the last balanced object anywhere in the
 * text; when none passes, the block or the line still comes back, so its issues can be named. Pure.
 */
export function extractReply(
  stdout: string,
  strategy: OutputStrategy,
  envelopes: readonly Envelope[],
  accepts: Accepts = () => true,
): Extraction {
  return extractAt(stdout, strategy, envelopes, accepts, 0);
}

function extractAt(
  stdout: string,
  strategy: OutputStrategy,
  envelopes: readonly Envelope[],
  accepts: Accepts,
  depth: number,
): Extraction {
  const out = new ParsedOutput(stdout);
  if (strategy === 'whole' || strategy === 'fenced' || strategy === 'last-line') {
    const reply = GENERIC[strategy](out);
    return reply
      ? { found: true, reply, via: strategy }
      : { found: false, issue: `printed no JSON reply (output: ${strategy})` };
  }
  const unwrap = (unwrapped: Unwrapped, name: string) =>
    fromUnwrapped(unwrapped, name, (text) => extractAt(text, 'auto', envelopes, accepts, depth + 1), depth);
  if (strategy !== 'auto') {
    const unwrapped = envelopes.find((e) => e.name === strategy)?.unwrap(out);
    if (!unwrapped)
      return { found: false, issue: `printed something other than ${strategy}'s JSON output (output: ${strategy})` };
    return unwrap(unwrapped, strategy);
  }
  if (stdout.trim() === '') return { found: false, issue: 'printed nothing on stdout' };
  for (const envelope of envelopes) {
    const unwrapped = envelope.unwrap(out);
    if (unwrapped) return unwrap(unwrapped, envelope.name);
  }
  const whole = GENERIC.whole(out);
  if (whole) return { found: true, reply: whole, via: 'whole' };
  const near = (['fenced', 'last-line'] as const).map((via) => ({ via, reply: GENERIC[via](out) }));
  const passing = near.find((c) => c.reply && accepts(c.reply));
  if (passing?.reply) return { found: true, reply: passing.reply, via: passing.via };
  const anywhere = lastObject(stdout, accepts);
  if (anywhere) return { found: true, reply: anywhere, via: 'last-object' };
  const failing = near.find((c) => c.reply);
  if (failing?.reply) return { found: true, reply: failing.reply, via: failing.via };
  return {
    found: false,
    issue:
      'printed no JSON reply object (tried the whole stdout, known agent wrappers, the last ```json block, ' +
      'the last JSON line and every balanced object)',
  };
}

function fromUnwrapped(
  unwrapped: Unwrapped,
  name: string,
  inner: (text: string) => Extraction,
  depth: number,
): Extraction {
  if ('error' in unwrapped) return { found: false, issue: unwrapped.error };
  if ('reply' in unwrapped) return { found: true, reply: unwrapped.reply, via: name };
  if (depth >= MAX_DEPTH) return { found: false, issue: `printed output wrapped more than ${MAX_DEPTH} levels deep` };
  const found = inner(unwrapped.text);
  return found.found
    ? { ...found, via: `${name} > ${found.via}` }
    : { found: false, issue: `${found.issue} (in the ${name} result text)` };
}

function asObject(value: unknown): Record<string, unknown> | undefined {
  return isObject(value) ? value : undefined;
}

// The info string may not hold backticks (CommonMark); excluding them keeps the scan linear
// on hostile output like 4 MiB of "```json ```json ..." without a newline.
const FENCE = /```[ \t]*json[^\n`]*\n([\s\S]*?)\n?[ \t]*```/gi;

function lastFencedJson(text: string): Record<string, unknown> | undefined {
  let last: string | undefined;
  for (const match of text.matchAll(FENCE)) last = match[1];
  return last === undefined ? undefined : asObject(tryParse(last));
}

function lastJsonLine(text: string): Record<string, unknown> | undefined {
  let end = text.length;
  while (end > 0) {
    const start = text.lastIndexOf('\n', end - 1) + 1;
    const line = text.slice(start, end).trim();
    // Only a line that could be an object is parsed: failing JSON.parse calls are slow, and a
    // 4 MiB tail can hold millions of lines.
    if (line.startsWith('{') && line.endsWith('}')) {
      const value = asObject(tryParse(line));
      if (value) return value;
    }
    end = start - 1;
  }
  return undefined;
}
