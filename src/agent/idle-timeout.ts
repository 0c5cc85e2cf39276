/**
 * The idle-timeout policy: `onIdle` once the agent has printed nothing for `ms` (null: off).
 * `quietFor` tells how long it has been silent. Returns its cleanup.
 */
export function idleTimeout(ms: number | null, quietFor: () => number, onIdle: () => void): () => void {
  if (ms === null) return () => {};
  // Checked a few times per period: precise enough, and cheaper than a timer reset per chunk.
  const timer = setInterval(() => quietFor() >= ms && onIdle(), Math.max(50, Math.min(1000, ms / 4)));
  return () => clearInterval(timer);
}
