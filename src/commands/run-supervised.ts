import path from 'node:path';
import type { HookContext } from '../hooks/hook.js';
import type { EventListener } from '../events/types.js';
import { failedOutcome, finishedOutcome } from '../progress/outcome.js';
import { createReporter } from '../progress/reporter.js';
import { wantsColour, type ReporterMode } from '../progress/style.js';
import type { Board } from '../board/read.js';
import type { SettingsFlags } from '../settings.js';
import { formatSpend, Spend } from '../spend.js';
import { Stopper } from '../stop.js';
import { supervise } from '../supervise.js';
import { SupervisorError } from '../errors.js';
import type { RunEnding, RunFlags, RunIO } from './run.js';

/**
 * A run with work to do: show its progress, supervise the board, and say how it ended, the
 * spend included. A closed stdout or stderr stops it in order (exit 74), like a signal.
 */
export async function runSupervised(board: Board, file: string, flags: RunFlags, settings: SettingsFlags, mode: ReporterMode, io: RunIO): Promise<RunEnding> {
  const reporter = createReporter(mode, io.stdout, { colour: wantsColour(io.stdout.isTTY === true, io.env, flags['no-color'] === true) });
  const context: HookContext = { file: path.resolve(file), run: '', steps: 0, task: '' };
  const spend = new Spend();
  const track: EventListener = (event) => {
    if (event.type === 'run_started') context.run = event.run;
    if (event.type === 'step_started') Object.assign(context, { steps: event.step, task: event.task });
  };
  const stopper = new Stopper();
  const unwatch = stopper.watchOutput(io);
  try {
    const result = await supervise({ file, board, spend, ...settings, once: flags.once === true, watch: flags.watch === true, listeners: [track, reporter.event], onLine: reporter.line, env: io.env, stopper });
    return { outcome: finishedOutcome(result, file, formatSpend(spend.total)), context };
  } catch (error) {
    return { outcome: failedOutcome(error, file, formatSpend(spend.total)), context, ...(!(error instanceof SupervisorError) && { bug: error }) };
  } finally {
    reporter.close();
    unwatch();
  }
}
