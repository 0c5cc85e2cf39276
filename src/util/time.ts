/** A time as a person reads it in their own zone: `2026-11-23 17:04:05` (pure but for the zone). */
export function localStamp(time: Date | string | number): string {
  const d = new Date(time);
  const pad = (n: number) => String(n).padStart(2, '0');
  return (
    `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ` +
    `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`
  );
}

/** The local time of day, `HH:MM`. */
export function localClock(time: Date | string | number): string {
  return localStamp(time).slice(11, 16);
}

/** A run's id: its start time in UTC and the supervisor's pid, safe in a file name and sorting by time. */
export function runId(start: Date, pid: number): string {
  return `${start.toISOString().replace(/[:.]/g, '-')}-${pid}`;
}
