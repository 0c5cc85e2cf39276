import { isObject, ParsedOutput, tryParse } from './json.js';
import { WRAPPERS, type Wrapper } from './wrappers.js';

/** How the reply is found in stdout: `auto`, one generic strategy, or one agent CLI's wrapper. */
export type OutputStrategy = 'auto' | 'whole' | 'fenced' | 'last-line' | Wrapper['name'];

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

/** Find the reply object in an agent's stdout using the role's `output` strategy (SPEC §3). Pure. */
export function extractReply(stdout: string, strategy: OutputStrategy = 'auto', depth = 0): Extraction {
  const out = new ParsedOutput(stdout);
  if (strategy === 'whole' || strategy === 'fenced' || strategy === 'last-line') {
    const reply = GENERIC[strategy](out);
    return reply ? { found: true, reply, via: strategy } : { found: false, issue: `printed no JSON reply (output: ${strategy})` };
  }
  if (strategy !== 'auto') {
    const wrapper = WRAPPERS.find((w) => w.name === strategy) as Wrapper;
    const unwrapped = wrapper.unwrap(out);
    if (!unwrapped) return { found: false, issue: `printed something other than ${strategy}'s JSON output (output: ${strategy})` };
    return fromUnwrapped(unwrapped, strategy, depth);
  }
  if (stdout.trim() === '') return { found: false, issue: 'printed nothing on stdout' };
  for (const wrapper of WRAPPERS) {
    const unwrapped = wrapper.unwrap(out);
    if (unwrapped) return fromUnwrapped(unwrapped, wrapper.name, depth);
  }
  for (const name of ['whole', 'fenced', 'last-line'] as const) {
    const reply = GENERIC[name](out);
    if (reply) return { found: true, reply, via: name };
  }
  return { found: false, issue: 'printed no JSON reply object (tried the whole stdout, known agent wrappers, the last ```json block and the last JSON line)' };
}

function fromUnwrapped(unwrapped: ReturnType<Wrapper['unwrap']> & object, name: string, depth: number): Extraction {
  if ('error' in unwrapped) return { found: false, issue: unwrapped.error };
  if ('reply' in unwrapped) return { found: true, reply: unwrapped.reply, via: name };
  if (depth >= MAX_DEPTH) return { found: false, issue: `printed output wrapped more than ${MAX_DEPTH} levels deep` };
  const inner = extractReply(unwrapped.text, 'auto', depth + 1);
  return inner.found ? { ...inner, via: `${name} > ${inner.via}` } : { found: false, issue: `${inner.issue} (in the ${name} result text)` };
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
