import path from 'node:path';
import type { WrittenText } from '../board/read.js';
import { SupervisorError } from '../errors.js';
import type { HookContext } from '../hooks/hook.js';
import type { EventListener } from '../events/types.js';
import { failedOutcome, finishedOutcome, type Outcome } from '../progress/outcome.js';
import { createReporter } from '../progress/reporter.js';
import type { ReporterMode } from '../progress/style.js';
import type { SettingsFlags } from '../board/settings.js';
import { formatSpend, Spend } from '../spend.js';
import { Stopper } from './stop.js';
import { supervise } from './supervise.js';

/** Where a command talks: `run` shows progress on stdout, `try` on stderr, so both may be terminals. */
export interface RunIO {
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
  env: NodeJS.ProcessEnv;
}

/** How the run ended, and what the hooks and the last line need to know of it. */
export interface RunEnding {
  outcome: Outcome;
  context: HookContext;
  /** A bug, rethrown for cli.ts once the outcome is printed. */
  bug?: unknown;
}

/** What `run` asks of a session besides the board: the settings, the shape of the run, how it shows. */
export interface SessionOptions extends SettingsFlags {
  file: string;
  seen: WrittenText;
  once: boolean;
  watch: boolean;
  mode: ReporterMode;
  colour: boolean;
  /** The run's notifier listening to its events (notify/notifier.ts), when notifications go somewhere. */
  notifier?: EventListener;
}

/**
 * A run with work to do, as the `run` command shows it: its progress, the board supervised, and
 * how it ended with the spend. A closed stdout or stderr stops it in order (exit 74), like a signal.
 * Loaded only when there is work to do (start-up: bench/README.md).
 */
export async function runSession(options: SessionOptions, io: RunIO): Promise<RunEnding> {
  const { mode, colour, notifier, ...run } = options;
  const reporter = createReporter(mode, io.stdout, { colour });
  const context: HookContext = { file: path.resolve(options.file), run: '', steps: 0, task: '' };
  const spend = new Spend();
  const track: EventListener = (event) => {
    if (event.type === 'run_started') context.run = event.run;
    if (event.type === 'step_started') Object.assign(context, { steps: event.step, task: event.task });
  };
  const stopper = new Stopper();
  const unwatch = stopper.watchOutput(io);
  try {
    const result = await supervise({
      ...run,
      spend,
      listeners: [track, reporter.event, ...(notifier ? [notifier] : [])],
      onLine: reporter.line,
      env: io.env,
      stopper,
    });
    return { outcome: finishedOutcome(result, options.file, formatSpend(spend.total)), context };
  } catch (error) {
    return {
      outcome: failedOutcome(error, options.file, formatSpend(spend.total)),
      context,
      ...(!(error instanceof SupervisorError) && { bug: error }),
    };
  } finally {
    reporter.close();
    unwatch();
  }
}
