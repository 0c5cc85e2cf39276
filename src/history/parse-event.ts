import type { SupervisorEvent } from '../log/events.js';

/**
 * The event on one line of events.jsonl, or undefined for a line that holds none (pure).
 * A line cut short by a crash is skipped; when the next run appended its first event to
 * that same line, the appended event is kept: every event is written as `{"time":…` first.
 * Unknown event types and fields pass through for the readers to ignore.
 */
export function parseEvent(text: string): SupervisorEvent | undefined {
  const event = asEvent(text);
  if (event) return event;
  const appended = text.lastIndexOf('{"time":');
  return appended > 0 ? asEvent(text.slice(appended)) : undefined;
}

function asEvent(text: string): SupervisorEvent | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const event = value as Partial<SupervisorEvent>;
  return typeof event.time === 'string' && typeof event.type === 'string' && typeof event.run === 'string' ? (event as SupervisorEvent) : undefined;
}

/** The events on lines, in the lines' order; lines that hold none are skipped. */
export function* parseEvents(lines: Iterable<{ text: string }>): Generator<SupervisorEvent> {
  for (const line of lines) {
    const event = parseEvent(line.text);
    if (event) yield event;
  }
}

/**
 * A top-level string field of an event line, read without parsing the line, or undefined when
 * that cannot be told for sure (pure). Sure means: no `{` or `[` comes before the key, so it is
 * at the top level, and the value has no escapes. A quote inside a JSON string is always
 * escaped, so `"key":"` can only be a key, never text inside a value.
 */
export function peekString(text: string, key: string): string | undefined {
  const needle = `"${key}":"`;
  const at = text.indexOf(needle);
  if (at < 0) return undefined;
  for (let i = 1; i < at; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x7b || c === 0x5b) return undefined;
  }
  const from = at + needle.length;
  const to = text.indexOf('"', from);
  if (to < 0) return undefined;
  const value = text.slice(from, to);
  return value.includes('\\') ? undefined : value;
}
