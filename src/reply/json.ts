// `output: auto` tries the known wrappers, then the whole stdout, and several of them parse the
// same text (stdout, or it without its final newline): a reply of thousands of tasks would be
// parsed four times. The last two texts and their values are kept; JSON.parse is pure.
const recent: Array<{ text: string; value: unknown }> = [];

/** JSON.parse that returns undefined instead of throwing (deeply nested input can throw RangeError). */
export function tryParse(text: string): unknown {
  const seen = recent.find((entry) => entry.text === text);
  if (seen) return seen.value;
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch {
    value = undefined;
  }
  recent.unshift({ text, value });
  recent.length = Math.min(recent.length, 2);
  return value;
}

/** A plain JSON object (not an array, not null). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Parse every non-blank line as JSON; null unless all of them are objects (a JSONL stream). */
export function parseJsonLines(text: string): Record<string, unknown>[] | null {
  const events: Record<string, unknown>[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const value = tryParse(line);
    if (!isObject(value)) return null;
    events.push(value);
  }
  return events.length > 0 ? events : null;
}
