// The two timer policies of an attempt (src/agent/README.md, step 4): each calls back once its
// time has come and returns its cleanup; attempt.ts ends the attempt the same way for both.

// Node fires a longer timer after 1 ms instead; 24.8 days is as good as forever for an agent.
const MAX_TIMER_MS = 2 ** 31 - 1;

/** The wall-clock timeout policy: `onTimeout` once `ms` have passed. Returns its cleanup. */
export function wallTimeout(ms: number, onTimeout: () => void): () => void {
  const timer = setTimeout(onTimeout, Math.min(ms, MAX_TIMER_MS));
  return () => clearTimeout(timer);
}

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
