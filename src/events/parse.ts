import type { SupervisorEvent } from './event-types.js';

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
  return typeof event.time === 'string' && typeof event.type === 'string' && typeof event.run === 'string'
    ? (event as SupervisorEvent)
    : undefined;
}

/** The events on lines, in the lines' order; lines that hold none are skipped. */
export function* parseEvents(lines: Iterable<{ text: string }>): Generator<SupervisorEvent> {
  for (const line of lines) {
    const event = parseEvent(line.text);
    if (event) yield event;
  }
}

/**
 * A reader of one top-level string field of event lines that does not parse them (pure): it
 * gives the value, or undefined when that cannot be told for sure. Sure means: no `{` or `[`
 * comes before the key, so it is at the top level, and the value has no escapes. A quote
 * inside a JSON string is always escaped, so `"key":"` can only be a key, never text in a value.
 */
export function fieldPeeker(key: string): (text: string) => string | undefined {
  if (!/^\w+$/.test(key)) throw new Error(`fieldPeeker: ${JSON.stringify(key)} is not a plain key`);
  // Not global: a pattern without the g flag keeps no state between calls.
  const field = new RegExp(`"${key}":"([^"]*)"`);
  return (text) => {
    const match = field.exec(text);
    const value = match?.[1];
    // Index 0 is the event's own brace; any other before the key could open a nested object.
    if (value === undefined || value.includes('\\') || /[{[]/.test(text.slice(1, match?.index))) return undefined;
    return value;
  };
}
