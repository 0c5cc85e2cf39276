import type { StopSignals } from '../loop/context.js';

/**
 * The interrupt policy: the run's first stop request (Ctrl-C, SIGTERM, a lost lock) ends the
 * agent gracefully, a second one at once. Returns its cleanup.
 */
export function onStop(stop: StopSignals, graceful: () => void, force: () => void): () => void {
  stop.interrupt.addEventListener('abort', graceful, { once: true });
  stop.force.addEventListener('abort', force, { once: true });
  return () => {
    stop.interrupt.removeEventListener('abort', graceful);
    stop.force.removeEventListener('abort', force);
  };
}
