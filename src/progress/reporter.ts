import { writeIfOpen } from '../stop.js';
import { outcomeLine, type Outcome } from './outcome.js';
import { liveReporter } from './live.js';
import { plainReporter } from './plain.js';
import { createStyle, wantsColour, wantsLiveLine } from './style.js';

// Plain output says every five minutes that a long attempt is still running.
const HEARTBEAT_MS = 5 * 60_000;
import type { Reporter } from './types.js';

/** How progress is shown: a live line on a terminal, plain lines, JSON events, or nothing but the outcome. */
export type ReporterMode = 'live' | 'plain' | 'json' | 'quiet';

/** What decides the mode and colours: the flags and where stdout goes. */
export interface ReporterChoice {
  json?: boolean;
  quiet?: boolean;
  noColor?: boolean;
  isTTY: boolean;
  env: NodeJS.ProcessEnv;
}

/** `--json` wins, then `--quiet`; otherwise a terminal gets the live line and a pipe or CI plain lines (pure). */
export function reporterMode(choice: ReporterChoice): ReporterMode {
  if (choice.json) return 'json';
  if (choice.quiet) return 'quiet';
  return wantsLiveLine(choice.isTTY, choice.env) ? 'live' : 'plain';
}

/** The reporter that shows a run's progress on `out` (a TTY stream for the live mode). */
export function createReporter(mode: ReporterMode, out: NodeJS.WritableStream & { columns?: number }, options: { colour?: boolean; heartbeatMs?: number } = {}): Reporter {
  const write = (text: string) => writeIfOpen(out, text);
  const style = createStyle(mode === 'live' && options.colour === true);
  const none = { line: () => {}, close: () => {}, style };
  switch (mode) {
    case 'json':
      return { ...none, event: (event) => write(`${JSON.stringify(event)}\n`) };
    case 'quiet':
      return { ...none, event: () => {} };
    case 'live':
      // Under `script` or a pty of size 0 the width is unknown: assume the classic 80.
      return liveReporter({ write, style, columns: () => out.columns || 80 });
    default:
      return plainReporter({ write, heartbeatMs: options.heartbeatMs ?? HEARTBEAT_MS });
  }
}

/** Create the reporter for these flags on this process's stdout. */
export function reporterFor(flags: { json?: boolean; quiet?: boolean; noColor?: boolean; heartbeatMs?: number }, stdout: NodeJS.WriteStream, env: NodeJS.ProcessEnv): { mode: ReporterMode; reporter: Reporter } {
  const mode = reporterMode({ ...flags, isTTY: stdout.isTTY === true, env });
  const options = { colour: wantsColour(stdout.isTTY === true, env, flags.noColor === true), ...(flags.heartbeatMs !== undefined && { heartbeatMs: flags.heartbeatMs }) };
  return { mode, reporter: createReporter(mode, stdout, options) };
}

/**
 * Print a run's final line: a success on stdout (stderr under --json, whose stdout holds only
 * events), a failure on stderr. The one place every exit of a run is worded.
 */
export function printOutcome(outcome: Outcome, mode: ReporterMode, reporter: Reporter, streams: { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream }): void {
  const line = outcomeLine(outcome);
  if (outcome.exitCode !== 0 || mode === 'json') writeIfOpen(streams.stderr, `${line}\n`);
  else writeIfOpen(streams.stdout, `${mode === 'live' ? `${reporter.style.green('✓')} ` : ''}${line}\n`);
}
