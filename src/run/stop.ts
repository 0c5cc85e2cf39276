import type { StopSignals } from '../loop/context.js';
import { InterruptedError, OutputClosedError, type SupervisorError } from '../errors.js';

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

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
      this.request(new InterruptedError(`Interrupted by ${signal}: the running agent and everything it started were stopped. The board is unchanged; run again to resume at the current task.`, signal));
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
      const onError = (error: NodeJS.ErrnoException) =>
        this.request(new OutputClosedError(`${name} was closed under the run (${error.code ?? error.message}): the running agent and everything it started were stopped. The board is unchanged; run again to resume at the current task.`));
      streams[name].on('error', onError);
      return () => streams[name].off('error', onError);
    });
    return () => watchers.forEach((stop) => stop());
  }
}
