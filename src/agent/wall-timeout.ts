// Node fires a longer timer after 1 ms instead; 24.8 days is as good as forever for an agent.
const MAX_TIMER_MS = 2 ** 31 - 1;

/** The wall-clock timeout policy: `onTimeout` once `ms` have passed. Returns its cleanup. */
export function wallTimeout(ms: number, onTimeout: () => void): () => void {
  const timer = setTimeout(onTimeout, Math.min(ms, MAX_TIMER_MS));
  return () => clearTimeout(timer);
}
