/** How a run is told to stop: the first Ctrl-C (or a lost lock) asks, the second insists. */
export interface StopSignals {
  /** Aborted with the error to stop with: the agent's group gets SIGTERM, then SIGKILL after the grace period. */
  interrupt: AbortSignal;
  /** Aborted on a second Ctrl-C: the agent's group gets SIGKILL at once. */
  force: AbortSignal;
}

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
