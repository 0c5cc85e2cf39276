// When a usage limit resets, as agent CLIs print it: epoch seconds, "in 5s" / "after 3 days 6 hours",
// a clock time ("7:12pm", "7:13 PM") in a named or the local time zone, or a date with a clock time
// ("Nov 26, 2:07pm", "Apr 23 at 4pm", "Nov 26th, 2026 2:08 PM"). Pure: the clock and the zone are passed
// in, and time zones are computed with Intl only.

/** A wall-clock reading in some time zone (month 1–12). */
interface WallTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const MINUTE = 60_000;
// The CLIs print reset times cut to the minute ("7:12pm" for 19:12:53), so the reset is only
// certain at the end of the minute shown: waking earlier would hit the limit again.
const SHOWN_MINUTE = MINUTE;
// A clock time without a date is the next one after now, allowing for the moments between the
// CLI printing it and this reading: a time up to a minute (plus the minute shown) in the past is
// a reset that has just passed. The price: a reset shown as a bare clock time 23h58m–24h ahead
// reads as just passed (Claude Code shows a date only beyond 24 h).
const CLOCK_SLACK = MINUTE;

const DURATION_PART =
  String.raw`(\d+(?:\.\d+)?)\s*(ms|seconds?|secs?|s|minutes?|mins?|m|hours?|hrs?|h|days?|d)` +
  String.raw`(?![a-z]),?\s*(?:and\s+)?`;

function unitMs(unit: string): number {
  const u = unit.toLowerCase();
  if (u === 'ms') return 1;
  if (u.startsWith('d')) return 86_400_000;
  if (u.startsWith('h')) return 3_600_000;
  return u.startsWith('m') ? MINUTE : 1000;
}

/**
 * A duration as CLIs word it ("5s", "5.2s", "500ms", "1h30m",
 * "45 minutes", "3 days 6 hours 57 minutes") in ms; null if it is not one.
 */
export function parseWordedDuration(text: string): number | null {
  const trimmed = text.trim().replace(/\.$/, '');
  // A fresh sticky pattern per call: its lastIndex is state.
  const part = new RegExp(DURATION_PART, 'giy');
  let total = 0;
  let consumed = 0;
  for (let match = part.exec(trimmed); match; match = part.exec(trimmed)) {
    total += Number(match[1]) * unitMs(match[2] as string);
    consumed = part.lastIndex;
  }
  return consumed === trimmed.length && consumed > 0 ? Math.round(total) : null;
}

/** Epoch seconds (10 digits) or milliseconds (13 digits) as a Date; null for anything else. */
export function fromEpoch(text: string | number): Date | null {
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0) return null;
  const ms = value >= 1e12 ? value : value * 1000;
  return ms > 1e12 && ms < 1e13 ? new Date(ms) : null;
}

// Whether `zone` is an IANA time zone this Node knows.
function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** The wall-clock reading of `date` in `timeZone`. */
function wallTimeOf(date: Date, timeZone: string): WallTime {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
  }).formatToParts(date);
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  return { year: get('year'), month: get('month'), day: get('day'), hour: get('hour') % 24, minute: get('minute') };
}

function offsetAt(instant: number, timeZone: string): number {
  const seen = wallTimeOf(new Date(instant), timeZone);
  return Date.UTC(seen.year, seen.month - 1, seen.day, seen.hour, seen.minute) - Math.floor(instant / MINUTE) * MINUTE;
}

/**
 * The instant a wall-clock reading in `timeZone` names. A reading a DST change makes ambiguous
 * names its later instant, one it skips the instant after the gap: for a reset, too late is
 * harmless and too early hits the limit again.
 */
export function instantOf(wall: WallTime, timeZone: string): Date {
  const asUtc = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute);
  // The instant lies within UTC−12…UTC+14 of the reading; the zone's offsets found every 6 hours
  // across a day and a half either side include any DST change near it.
  const offsets = new Set(Array.from({ length: 13 }, (_, i) => offsetAt(asUtc + (i - 6) * 21_600_000, timeZone)));
  const candidates = [...offsets].map((offset) => asUtc - offset);
  const exact = candidates.filter((instant) => {
    const seen = wallTimeOf(new Date(instant), timeZone);
    return (
      seen.year === wall.year &&
      seen.month === wall.month &&
      seen.day === wall.day &&
      seen.hour === wall.hour &&
      seen.minute === wall.minute
    );
  });
  return new Date(Math.max(...(exact.length > 0 ? exact : candidates)));
}

const CLOCK = /^(\d{1,2})(?::(\d{2}))?\s*([ap])\.?m\.?$/i;

/** "7:12pm", "4pm", "7:13 PM" as hour (0–23) and minute; null if it is not a 12-hour clock time. */
function parseClock(text: string): { hour: number; minute: number } | null {
  const match = CLOCK.exec(text.trim());
  if (!match) return null;
  const hour12 = Number(match[1]);
  const minute = Number(match[2] ?? 0);
  if (hour12 < 1 || hour12 > 12 || minute > 59) return null;
  return { hour: (hour12 % 12) + ((match[3] as string).toLowerCase() === 'p' ? 12 : 0), minute };
}

// "Nov 26, 2:07pm", "Apr 23 at 4pm", "Jan 3, 2027, 4pm", "Nov 26th, 2026 2:08 PM", "Sep 19th, 2026 7:10 AM"
const DATED = /^([A-Za-z]{3})[a-z]*\.?\s+(\d{1,2})(?:st|nd|rd|th)?(?:,?\s+(\d{4}))?(?:,|\s+at)?\s+(.+)$/;

/**
 * The reset a CLI printed as local time in `timeZone`: a clock time ("7:12pm": the next such time
 * after now, less a few minutes of slack) or a date and clock time (the year of now if none is
 * shown). The end of the minute shown, as the CLIs cut seconds off. Null if the text is neither.
 */
export function parseLocalResetTime(text: string, timeZone: string, now: Date): Date | null {
  if (!isTimeZone(timeZone)) return null;
  const clock = parseClock(text);
  const today = wallTimeOf(now, timeZone);
  if (clock) {
    let reset = instantOf({ ...today, ...clock }, timeZone);
    if (reset.getTime() + SHOWN_MINUTE < now.getTime() - CLOCK_SLACK) {
      const tomorrow = new Date(Date.UTC(today.year, today.month - 1, today.day + 1));
      reset = instantOf(
        { year: tomorrow.getUTCFullYear(), month: tomorrow.getUTCMonth() + 1, day: tomorrow.getUTCDate(), ...clock },
        timeZone,
      );
    }
    return new Date(reset.getTime() + SHOWN_MINUTE);
  }
  const dated = DATED.exec(text.trim());
  const month = dated ? MONTHS.indexOf((dated[1] as string).toLowerCase()) + 1 : 0;
  const time = dated ? parseClock(dated[4] as string) : null;
  if (!dated || month === 0 || !time) return null;
  const day = Number(dated[2]);
  const year = dated[3] ? Number(dated[3]) : today.year;
  const reset = instantOf({ year, month, day, ...time }, timeZone);
  // No year shown and the date already behind us: the CLI meant next year (a reset across New Year).
  if (!dated[3] && reset.getTime() + SHOWN_MINUTE < now.getTime() - 86_400_000)
    return new Date(instantOf({ year: year + 1, month, day, ...time }, timeZone).getTime() + SHOWN_MINUTE);
  return new Date(reset.getTime() + SHOWN_MINUTE);
}

// Beyond ±8.64e15 ms a Date is invalid, and every use of it (toISOString) throws a RangeError.
const LAST_DATE_MS = 8.64e15;

/** The instant `ms` names, or null when no Date can hold it ("resets in 1e400s" is no reset time). */
export function representable(ms: number): Date | null {
  return Number.isFinite(ms) && Math.abs(ms) <= LAST_DATE_MS ? new Date(ms) : null;
}

/**
 * Any reset wording a role file's pattern may capture: epoch seconds or ms, an ISO 8601 time, a
 * duration from now ("90s", "3 minutes", a bare number of seconds), or a local time as
 * parseLocalResetTime reads it. Null if none fits, or if it names a time no Date can hold.
 */
export function parseResetText(text: string, timeZone: string, now: Date): Date | null {
  const trimmed = text.trim();
  if (/^\d{10}$|^\d{13}$/.test(trimmed)) return fromEpoch(trimmed);
  if (/^\d+(\.\d+)?$/.test(trimmed)) return representable(now.getTime() + Number(trimmed) * 1000);
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(trimmed)) {
    const ms = Date.parse(trimmed);
    if (Number.isFinite(ms)) return new Date(ms);
  }
  const duration = parseWordedDuration(trimmed.replace(/^(in|after)\s+/i, ''));
  if (duration !== null) return representable(now.getTime() + duration);
  // "7:12pm (Europe/Vilnius)": a zone in parentheses overrides the local one.
  const zoned = /^(.*?)\s*\(([A-Za-z_]+(?:\/[A-Za-z0-9_+-]+)*)\)$/.exec(trimmed);
  if (zoned && isTimeZone(zoned[2] as string)) return parseLocalResetTime(zoned[1] as string, zoned[2] as string, now);
  return parseLocalResetTime(trimmed, timeZone, now);
}
