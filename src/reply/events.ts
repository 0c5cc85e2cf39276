import { isObject, tryParse } from './json.js';

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
  return (text ?? '').split('\n').map((l) => l.trim()).find(Boolean) ?? '';
}

/** A string field of an object, or undefined. */
export function stringField(value: unknown, key: string): string | undefined {
  return isObject(value) && typeof value[key] === 'string' ? value[key] : undefined;
}

/** A finite number field of an object, or undefined. */
export function numberField(value: unknown, key: string): number | undefined {
  return isObject(value) && typeof value[key] === 'number' && Number.isFinite(value[key]) ? value[key] : undefined;
}
