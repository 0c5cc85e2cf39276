import { isObject, tryParse } from './json.js';

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
