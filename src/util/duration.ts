import { InputError } from '../errors.js';

const DAY_MS = 86_400_000;
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: DAY_MS };
const PART = /(\d+(?:\.\d+)?)(ms|s|m|h|d)/gy;
const FORM = 'a duration like 90s, 20m or 1h30m';
/**
 * The longest duration of each kind. One Node timer holds at most 2^31−1 ms (24.8 days) and
 * fires at once past it: 24d for what is one timer (a timeout, a grace). A budget or a wait
 * counted on the clock and slept in parts (a run's time limit, a usage-limit wait) may be longer
 * — a month-long run is legitimate — up to a year: past that a deadline is a typo, and soon past
 * the range of a Date. Each setting says which it is where it is read.
 */
export const LONGEST_MS = { timer: 24 * DAY_MS, clock: 365 * DAY_MS };

/**
 * Parse `90s`, `20m`, `1h30m`, `2d`, `500ms` or a bare number of seconds
 * into milliseconds; null if malformed or past `maxMs`.
 */
export function parseDuration(value: unknown, maxMs = LONGEST_MS.timer): number | null {
  const ms = readMs(value);
  return ms !== null && ms >= 1 && ms <= maxMs ? ms : null;
}

/**
 * A duration as written for a setting or flag, read (pure): its milliseconds, or what it must be
 * instead — the words after "must be", its range when it is out of range (`longest`: LONGEST_MS).
 */
export function readDuration(value: unknown, longest: number = LONGEST_MS.timer): { ms: number } | { mustBe: string } {
  const ms = readMs(value);
  if (ms === null) return { mustBe: `${FORM} (got ${JSON.stringify(value)})` };
  if (ms < 1 || ms > longest)
    return { mustBe: `a duration from 1ms to ${longest / DAY_MS}d (got ${JSON.stringify(value)})` };
  return { ms };
}

/** Like readDuration, but a malformed or out-of-range value is an InputError naming `where`. */
export function requireDuration(value: unknown, where: string, longest: number = LONGEST_MS.timer): number {
  const read = readDuration(value, longest);
  if ('mustBe' in read) throw new InputError(`${where} must be ${read.mustBe}.`);
  return read.ms;
}

/** Human form of a duration: 850ms, 12.3s, 4m05s, 1h02m. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const totalSeconds = Math.round(ms / 1000);
  const hours = Math.floor(totalSeconds / 3600);
  const minutes = Math.floor((totalSeconds % 3600) / 60);
  const seconds = totalSeconds % 60;
  if (hours > 0) return `${hours}h${String(minutes).padStart(2, '0')}m`;
  return `${minutes}m${String(seconds).padStart(2, '0')}s`;
}

// The milliseconds written, rounded, however many (Infinity too); null when it is no duration at all.
function readMs(value: unknown): number | null {
  if (typeof value === 'number') return value > 0 ? Math.round(value * 1000) : null; // Infinity is out of range
  if (typeof value !== 'string') return null;
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return readMs(Number(text));
  let total = 0;
  let consumed = 0;
  PART.lastIndex = 0;
  for (let match = PART.exec(text); match; match = PART.exec(text)) {
    total += Number(match[1]) * (UNIT_MS[match[2] as string] as number);
    consumed = PART.lastIndex;
  }
  return consumed === text.length && consumed > 0 && total > 0 ? Math.round(total) : null;
}
