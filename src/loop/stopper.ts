import type { StopSignals } from './world.js';
import { InterruptedError, OutputClosedError, type SupervisorError } from '../errors.js';

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
// What a stop says it did, as the run's last line; said otherwise when no agent was running (idleStop).
const AGENT_STOPPED = ': the running agent and everything it started were stopped';
const UNCHANGED = 'The board is unchanged; run again to resume at the current task.';

/**
 * A stop that came while no agent was running (a resident run waiting for an edit): its message
 * said otherwise when the stopper made it, before anyone knew. Corrected in place, since the
 * run ends with this very error; an error of another kind is left as it is.
 */
export function idleStop(error: unknown, waitingFor: string): void {
  if (
    (error instanceof InterruptedError || error instanceof OutputClosedError) &&
    error.message.includes(AGENT_STOPPED)
  ) {
    error.message = error.message.replace(AGENT_STOPPED, ` while waiting for ${waitingFor}: no agent was running`);
  }
}

/**
 * Where every reason to stop a run meets: a signal, a lost lock, closed output. The first
 * request stops the running agent gracefully (SIGTERM, then SIGKILL after the grace); a second
 * one kills it at once. The first request's error is the one the run ends with.
 */
export class Stopper {
  private readonly interrupt = new AbortController();
  private readonly force = new AbortController();

  /** The signals the attempt runner and the loop watch. */
  get signals(): StopSignals {
    return { interrupt: this.interrupt.signal, force: this.force.signal };
  }

  /** Whether a stop was requested, and why. */
  get reason(): SupervisorError | undefined {
    return this.interrupt.signal.aborted ? (this.interrupt.signal.reason as SupervisorError) : undefined;
  }

  /** Ask the run to stop with `error`; asked again, insist. */
  request(error: SupervisorError): void {
    if (this.interrupt.signal.aborted) this.force.abort();
    else this.interrupt.abort(error);
  }

  /** Turn SIGINT, SIGTERM and SIGHUP of `source` into requests; returns how to stop listening. */
  listen(source: NodeJS.EventEmitter): () => void {
    const onSignal = (signal: NodeJS.Signals) =>
      this.request(new InterruptedError(`Interrupted by ${signal}${AGENT_STOPPED}. ${UNCHANGED}`, signal));
    for (const signal of SIGNALS) source.on(signal, onSignal);
    return () => {
      for (const signal of SIGNALS) source.off(signal, onSignal);
    };
  }

  /**
   * Turn a closed stdout or stderr (EPIPE: the reader of a pipe is gone; EIO: the terminal was
   * lost) into a request, instead of the crash an unhandled stream error is. Returns how to stop watching.
   */
  watchOutput(streams: Record<'stdout' | 'stderr', NodeJS.EventEmitter>): () => void {
    const watchers = (['stdout', 'stderr'] as const).map((name) => {
      // EIO: the terminal is gone, a hang-up like the SIGHUP that comes with it (129), not a closed pipe.
      const onError = (error: NodeJS.ErrnoException) =>
        this.request(
          error.code === 'EIO'
            ? new InterruptedError(`The terminal was lost (${name}: EIO)${AGENT_STOPPED}. ${UNCHANGED}`, 'SIGHUP')
            : new OutputClosedError(
                `${name} was closed under the run (${error.code ?? error.message})${AGENT_STOPPED}. ${UNCHANGED}`,
              ),
        );
      streams[name].on('error', onError);
      return () => streams[name].off('error', onError);
    });
    return () => watchers.forEach((stop) => stop());
  }
}
