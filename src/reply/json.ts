/** JSON.parse that returns undefined instead of throwing (deeply nested input can throw RangeError). */
export function tryParse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
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

/**
 * An agent's stdout, parsed at most once each way: as one JSON value and as JSONL. Every
 * known wrapper and the whole-output strategy look at the same text, and a reply of
 * thousands of tasks is worth parsing once, not four times.
 */
export class ParsedOutput {
  private wholeValue?: { value: unknown };
  private lineValues?: { value: Record<string, unknown>[] | null };

  constructor(readonly text: string) {}

  /** The whole text as one JSON value, or undefined. */
  get whole(): unknown {
    this.wholeValue ??= { value: tryParse(this.text) };
    return this.wholeValue.value;
  }

  /** Every non-blank line as a JSON object, or null. */
  get lines(): Record<string, unknown>[] | null {
    this.lineValues ??= { value: parseJsonLines(this.text) };
    return this.lineValues.value;
  }
}

/**
 * The JSON objects an agent CLI printed on stdout: the elements of one JSON array or the one
 * object stdout holds (Claude Code and Gemini CLI `json`), else each line that is a JSON object
 * (JSONL streams), other lines skipped. Pure.
 */
export function stdoutEvents(stdout: string): Record<string, unknown>[] {
  const whole = parse(stdout.trim());
  if (Array.isArray(whole)) return whole.filter(isObject);
  if (isObject(whole)) return [whole];
  const events: Record<string, unknown>[] = [];
  for (const line of stdout.split('\n')) {
    const value = parse(line.trim());
    if (isObject(value)) events.push(value);
  }
  return events;
}

/** The JSON value of text that looks like an object or array, else undefined (never throws). */
export function parse(text: string): unknown {
  const looksLikeJson = (text.startsWith('{') && text.endsWith('}')) || (text.startsWith('[') && text.endsWith(']'));
  return looksLikeJson ? tryParse(text) : undefined;
}

/** The first non-blank line of a text, trimmed; empty for none. */
export function firstLine(text: string | undefined): string {
  return (
    (text ?? '')
      .split('\n')
      .map((l) => l.trim())
      .find(Boolean) ?? ''
  );
}

/** A string field of an object, or undefined. */
export function stringField(value: unknown, key: string): string | undefined {
  return isObject(value) && typeof value[key] === 'string' ? value[key] : undefined;
}

/** A finite number field of an object, or undefined. */
export function numberField(value: unknown, key: string): number | undefined {
  return isObject(value) && typeof value[key] === 'number' && Number.isFinite(value[key]) ? value[key] : undefined;
}
