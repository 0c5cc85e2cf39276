import { InputError } from '../errors.js';

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
const PART = /(\d+(?:\.\d+)?)(ms|s|m|h)/gy;

/** Parse `90s`, `20m`, `1h30m`, `500ms` or a bare number of seconds into milliseconds; null if malformed. */
export function parseDuration(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) && value > 0 ? Math.round(value * 1000) : null;
  if (typeof value !== 'string') return null;
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return parseDuration(Number(text));
  let total = 0;
  let consumed = 0;
  PART.lastIndex = 0;
  for (let match = PART.exec(text); match; match = PART.exec(text)) {
    total += Number(match[1]) * (UNIT_MS[match[2] as string] as number);
    consumed = PART.lastIndex;
  }
  return consumed === text.length && consumed > 0 && total > 0 ? Math.round(total) : null;
}

/** Like parseDuration, but a malformed value is an InputError naming where it came from. */
export function requireDuration(value: unknown, where: string): number {
  const ms = parseDuration(value);
  if (ms === null) {
    throw new InputError(`${where} must be a duration like 90s, 20m or 1h30m (got ${JSON.stringify(value)}).`);
  }
  return ms;
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
