import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  fromEpoch,
  instantOf,
  parseLocalResetTime,
  parseResetText,
  parseWordedDuration,
} from '../../src/reply/reset-time.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const ZONES = [
  'UTC',
  'Europe/Vilnius',
  'Asia/Nicosia',
  'America/Recife',
  'America/New_York',
  'Australia/Lord_Howe',
  'Asia/Kathmandu',
  'Pacific/Chatham',
];

// Claude Code's wording of a reset (documented in test/fixtures/recorded/NOTES.md): within a day
// "5pm" / "5:30pm", later "Apr 23, 4pm" (the year too when it differs), then " (<zone>)".
function claudeWording(reset: Date, now: Date, zone: string): string {
  const minute = new Intl.DateTimeFormat('en-US', { timeZone: zone, minute: 'numeric' }).format(reset);
  const clock = {
    hour: 'numeric',
    minute: minute === '0' ? undefined : '2-digit',
    hour12: true,
    timeZone: zone,
  } as const;
  const year = new Intl.DateTimeFormat('en-US', { timeZone: zone, year: 'numeric' });
  const text =
    reset.getTime() - now.getTime() > 24 * HOUR
      ? reset.toLocaleString('en-US', {
          month: 'short',
          day: 'numeric',
          ...clock,
          ...(year.format(reset) !== year.format(now) && { year: 'numeric' }),
        })
      : reset.toLocaleTimeString('en-US', clock);
  return `${text.replace(/\s([AP]M)/i, (_, m: string) => m.toLowerCase())} (${zone})`;
}

// Codex's wording (codex-rs error.rs): "7:13 PM" on the same local date, else "Nov 26th, 2026 2:08 PM".
function codexWording(reset: Date, now: Date, zone: string): string {
  const day = (d: Date) => d.toLocaleDateString('en-US', { timeZone: zone });
  const clock = reset
    .toLocaleTimeString('en-US', { timeZone: zone, hour: 'numeric', minute: '2-digit', hour12: true })
    .replace(/\s/g, ' ');
  if (day(reset) === day(now)) return clock;
  const [month, date, year] = reset
    .toLocaleDateString('en-US', { timeZone: zone, month: 'short', day: 'numeric', year: 'numeric' })
    .replace(',', '')
    .split(' ') as [string, string, string];
  const n = Number(date);
  const suffix = n % 100 >= 11 && n % 100 <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th');
  return `${month} ${n}${suffix}, ${year} ${clock}`;
}

describe('reset times as the CLIs print them', () => {
  it('reads durations in the words CLIs use', () => {
    expect(parseWordedDuration('5s')).toBe(5000);
    expect(parseWordedDuration('5.2s')).toBe(5200);
    expect(parseWordedDuration('500ms')).toBe(500);
    expect(parseWordedDuration('1h30m')).toBe(90 * MINUTE);
    expect(parseWordedDuration('45 minutes')).toBe(45 * MINUTE);
    expect(parseWordedDuration('3 days 6 hours 57 minutes')).toBe((3 * 24 + 6) * HOUR + 57 * MINUTE);
    expect(parseWordedDuration('2 hours and 5 minutes.')).toBe(2 * HOUR + 5 * MINUTE);
    expect(parseWordedDuration('later')).toBeNull();
    expect(parseWordedDuration('5 parsecs')).toBeNull();
  });

  it('reads epoch seconds and milliseconds, nothing else', () => {
    expect(fromEpoch('1745000000')?.toISOString()).toBe('2025-04-18T18:13:20.000Z');
    expect(fromEpoch(1745000000123)?.getTime()).toBe(1745000000123);
    expect(fromEpoch('42')).toBeNull();
  });

  it('reads a clock time as the next one in its zone, the end of the minute shown', () => {
    const now = new Date('2026-11-23T17:07:53Z'); // 19:07 in Vilnius
    expect(parseLocalResetTime('7:12pm', 'Europe/Vilnius', now)?.toISOString()).toBe('2026-11-23T17:13:00.000Z');
    expect(parseLocalResetTime('5pm', 'Europe/Vilnius', now)?.toISOString()).toBe('2026-11-24T15:01:00.000Z');
    expect(parseLocalResetTime('11pm', 'Asia/Nicosia', now)?.toISOString()).toBe('2026-11-23T21:01:00.000Z');
    // A reset a minute past: it has passed, not tomorrow's; five minutes past: tomorrow's.
    expect(parseLocalResetTime('7:06 PM', 'Europe/Vilnius', now)?.toISOString()).toBe('2026-11-23T17:07:00.000Z');
    expect(parseLocalResetTime('7:02 PM', 'Europe/Vilnius', now)?.toISOString()).toBe('2026-11-24T17:03:00.000Z');
  });

  it('reads a date with a clock time, in the coming year when none is shown', () => {
    const now = new Date('2026-11-23T17:07:53Z');
    expect(parseLocalResetTime('Nov 26, 2:07pm', 'America/Recife', now)?.toISOString()).toBe(
      '2026-11-26T17:08:00.000Z',
    );
    expect(parseLocalResetTime('Apr 23 at 4pm', 'America/Recife', now)?.toISOString()).toBe('2027-04-23T19:01:00.000Z');
    expect(parseLocalResetTime('Sep 19th, 2026 7:10 AM', 'UTC', now)?.toISOString()).toBe('2026-09-19T07:11:00.000Z');
    expect(parseLocalResetTime('Jan 3, 2027, 4pm', 'UTC', now)?.toISOString()).toBe('2027-01-03T16:01:00.000Z');
    expect(parseLocalResetTime('soon', 'UTC', now)).toBeNull();
    expect(parseLocalResetTime('7pm', 'Not/AZone', now)).toBeNull();
  });

  it('names the later instant of a wall time a DST change repeats, and the one after a gap', () => {
    expect(instantOf({ year: 2026, month: 10, day: 25, hour: 3, minute: 30 }, 'Europe/Vilnius').toISOString()).toBe(
      '2026-10-25T01:30:00.000Z',
    );
    expect(instantOf({ year: 2026, month: 3, day: 8, hour: 2, minute: 30 }, 'America/New_York').toISOString()).toBe(
      '2026-03-08T07:30:00.000Z',
    );
    expect(instantOf({ year: 2026, month: 7, day: 1, hour: 12, minute: 0 }, 'Asia/Kathmandu').toISOString()).toBe(
      '2026-07-01T06:15:00.000Z',
    );
    // Found by the property below: a zone 13:45 ahead of UTC, two hours before its clock goes back.
    expect(instantOf({ year: 2034, month: 4, day: 2, hour: 2, minute: 0 }, 'Pacific/Chatham').toISOString()).toBe(
      '2034-04-01T12:15:00.000Z',
    );
  });

  it('reads what a role pattern captures: epochs, ISO times, durations, seconds, local times', () => {
    const now = new Date('2026-11-23T17:07:53Z');
    expect(parseResetText('1795453973', 'UTC', now)?.getTime()).toBe(1795453973000);
    expect(parseResetText('2026-11-23T19:00:00+02:00', 'UTC', now)?.toISOString()).toBe('2026-11-23T17:00:00.000Z');
    expect(parseResetText('in 90s', 'UTC', now)?.getTime()).toBe(now.getTime() + 90_000);
    expect(parseResetText('30', 'UTC', now)?.getTime()).toBe(now.getTime() + 30_000);
    expect(parseResetText('7:12pm (Europe/Vilnius)', 'UTC', now)?.toISOString()).toBe('2026-11-23T17:13:00.000Z');
    expect(parseResetText('8:00 PM', 'Europe/Vilnius', now)?.toISOString()).toBe('2026-11-23T18:01:00.000Z');
  });

  // Minutes ahead, leaving out the 2 minutes before 24 h that a bare clock time cannot tell
  // from a reset just passed (CLOCK_SLACK in reset-time.ts).
  const instants = fc.record({
    now: fc.date({ min: new Date('2024-01-01T00:00:00Z'), max: new Date('2034-12-31T00:00:00Z'), noInvalidDate: true }),
    ahead: fc.integer({ min: 0, max: 40 * 24 * 60 }).filter((m) => m < 24 * 60 - 2 || m > 24 * 60),
    zone: fc.constantFrom(...ZONES),
  });

  it("reads back every reset Claude Code's wording can show: never before it, at most a minute after", () => {
    fc.assert(
      fc.property(instants, ({ now, ahead, zone }) => {
        const reset = new Date(Math.floor(now.getTime() / MINUTE) * MINUTE + ahead * MINUTE + 17_000);
        const read = parseResetText(claudeWording(reset, now, zone), 'UTC', now);
        expect(read, claudeWording(reset, now, zone)).not.toBeNull();
        return lateByAMinute(reset, read as Date, zone);
      }),
      { numRuns: 400 },
    );
  });

  it("reads back every reset Codex's wording can show, in the local zone", () => {
    fc.assert(
      fc.property(instants, ({ now, ahead, zone }) => {
        const reset = new Date(now.getTime() + ahead * MINUTE + 17_000);
        const read = parseLocalResetTime(codexWording(reset, now, zone), zone, now);
        expect(read, codexWording(reset, now, zone)).not.toBeNull();
        return lateByAMinute(reset, read as Date, zone);
      }),
      { numRuns: 400 },
    );
  });
});

const offset = (date: Date, zone: string) =>
  new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' }).format(date);

// Never early; at most the minute the wording cuts off, or, when the clock went back in between,
// the later of the two instants the wall time names (instantOf's choice).
function lateByAMinute(reset: Date, read: Date, zone: string): boolean {
  const late = read.getTime() - reset.getTime();
  if (late < 0) return false;
  return late <= MINUTE || (offset(reset, zone) !== offset(read, zone) && late <= 2 * HOUR + MINUTE);
}
