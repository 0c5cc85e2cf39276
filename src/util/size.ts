const UNIT_BYTES: Record<string, number> = {
  b: 1,
  kb: 1e3,
  mb: 1e6,
  gb: 1e9,
  tb: 1e12,
  kib: 2 ** 10,
  mib: 2 ** 20,
  gib: 2 ** 30,
  tib: 2 ** 40,
};

/** Parse `500MB`, `1GiB`, `2.5 GB` or a bare number of bytes; null if malformed (pure). */
export function parseSize(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? Math.floor(value) : null;
  if (typeof value !== 'string') return null;
  const match = /^\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*$/.exec(value);
  const unit = UNIT_BYTES[(match?.[2] || 'b').toLowerCase()];
  return match && unit !== undefined ? Math.floor(Number(match[1]) * unit) : null;
}

/** A count as a person reads it: 950, 45.6k, 1.2M. */
export function formatCount(count: number): string {
  if (count < 1000) return String(Math.round(count));
  const [value, unit] = count < 1e6 ? [count / 1e3, 'k'] : count < 1e9 ? [count / 1e6, 'M'] : [count / 1e9, 'G'];
  return `${value.toFixed(value < 10 ? 1 : 0)}${unit}`;
}
