// Finding an agent's reply in its output, not yet checked: its CLI's envelope read first, then the
// whole output, the last ```json block, the last JSON line, and the last balanced object in prose.
import { isObject, ParsedOutput, tryParse } from './json.js';

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

// Models put their reply among prose: pretty-printed after a sentence, in a bare ``` fence, after
// another object on the same line, with text after it. The reply is the last balanced object of the
// text that passes the role's schema: a brace inside a JSON string is text, an object that never
// closes is skipped, and an object inside one that parsed but was rejected is part of it, not a
// reply of its own (inside prose that only looks like an object, `{see {…}}`, it still counts).

// Hostile text (4 MiB of braces and quotes) stays linear: the scan gives up past this many
// characters looked at per character of text, and at most this many candidates are parsed.
const WORK_PER_CHAR = 16;
const MAX_PARSED = 1000;

/** The last balanced JSON object in `text` that `accepts` takes, or undefined (pure). */
export function lastObject(
  text: string,
  accepts: (value: Record<string, unknown>) => boolean,
): Record<string, unknown> | undefined {
  const startOf = objectsByEnd(text);
  if (!startOf) return undefined;
  // Last first: by where each object ends, so an object comes before the objects inside it.
  let rejectedFrom = Infinity;
  let parsed = 0;
  for (let end = text.length - 1; end > 0 && parsed < MAX_PARSED; end--) {
    const start = startOf[end] as number;
    if (start < 0 || rejectedFrom < start) continue;
    // Only what could be an object is parsed: a failed JSON.parse costs more than this look.
    if (!/^\{\s*["}]/.test(text.slice(start, start + 64))) continue;
    parsed++;
    const value = tryParse(text.slice(start, end + 1));
    if (value === undefined) continue;
    if (isObject(value) && accepts(value)) return value;
    rejectedFrom = Math.min(rejectedFrom, start);
  }
  return undefined;
}

/**
 * For each index of the text, the start of the balanced object ending there (-1: none), found
 * from the last `{` back: an object met inside another is stepped over by its known end, so
 * each character is looked at a few times at most. Undefined when the budget runs out.
 */
function objectsByEnd(text: string): Int32Array | undefined {
  const endOf = new Int32Array(text.length);
  const startOf = new Int32Array(text.length).fill(-1);
  let budget = WORK_PER_CHAR * text.length;
  for (let start = text.lastIndexOf('{'); start >= 0; start = start === 0 ? -1 : text.lastIndexOf('{', start - 1)) {
    let end = -1;
    let inString = false;
    for (let i = start + 1; i < text.length && budget-- > 0; i++) {
      const c = text.charCodeAt(i);
      if (inString) {
        if (c === BACKSLASH) i++;
        else if (c === QUOTE) inString = false;
      } else if (c === QUOTE) inString = true;
      else if (c === CLOSE) {
        end = i;
        break;
      } else if (c === OPEN) {
        const inner = endOf[i] as number;
        if (inner < 0) break;
        i = inner;
      }
    }
    if (budget <= 0) return undefined;
    endOf[start] = end;
    // Two objects ending at one brace (the inner one seen from the outer as inside a string): the outer one.
    if (end >= 0) startOf[end] = start;
  }
  return startOf;
}

const OPEN = 0x7b;
const CLOSE = 0x7d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
