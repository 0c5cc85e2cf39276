import path from 'node:path';
import { formatDuration } from '../util/duration.js';
import { runnable } from '../util/self-command.js';
import { cleanLine } from '../util/clean-text.js';
import { writeIfOpen } from '../util/write-if-open.js';
import type { ReporterMode } from './style.js';
import type { Style } from '../util/style.js';
import { ExitCode, outcomeKind, SupervisorError, type OutcomeKind } from '../errors.js';
import { toRunMore } from '../board/hints.js';

/** The end of a run: its kind, exit code and the one line a person reads, with what to do next. */
export interface Outcome {
  kind: OutcomeKind;
  exitCode: number;
  /** One line: what happened and what to do next. */
  message: string;
}

/** What a run that ended normally reports. */
export interface FinishedRun {
  reason: 'done' | 'once';
  steps: number;
  elapsedMs: number;
  /** The board as the run left it. */
  current: string | null;
  phase: string | null;
}

/** The outcome of a run that ended normally (exit 0). `file` is kanban.yaml as the person gave it. */
export function finishedOutcome(run: FinishedRun, file: string, spent = ''): Outcome {
  const took = `${formatDuration(run.elapsedMs)}${spent ? `, ${spent}` : ''}`;
  if (run.reason === 'once') {
    return {
      kind: 'once',
      exitCode: 0,
      message: `Ran one step (--once) in ${took}. Run again to continue: ${runnable(file)}`,
    };
  }
  // `phase: complete` ends the run whatever `current` says: a task left there will not run.
  const why =
    run.current === null
      ? `the board has no next task${run.steps === 0 && run.phase === 'complete' ? ' and phase is complete' : ''}`
      : `phase is complete, so ${run.current} (current) is not run`;
  // Found finished (nothing ran), or finished with a task left current: what to change to run more,
  // every field at once (the supervisor never reads task files to guess which task that is).
  const next = [
    run.steps === 0 || run.current !== null ? toRunMore(run, path.basename(file)) : '',
    run.steps > 0 ? `See what happened: ${runnable(`report ${file}`)}` : '',
  ]
    .filter(Boolean)
    .join(' ');
  return { kind: 'done', exitCode: 0, message: `Done: ${why} (${run.steps} step(s), ${took}). ${next}` };
}

/**
 * The outcome of a run stopped by an error. Most errors already say what to do next;
 * this is the one place that adds the advice where the message cannot know it.
 */
export function failedOutcome(error: unknown, file?: string, spent = ''): Outcome {
  if (!(error instanceof SupervisorError)) {
    return {
      kind: 'internal_error',
      exitCode: ExitCode.internal,
      message: error instanceof Error ? error.message : String(error),
    };
  }
  const kind = outcomeKind(error.exitCode);
  // An agent's message may span lines; the outcome is one line.
  let message = error.message.replace(/\s*\n\s*/g, ' ').trim();
  if (kind === 'halted_for_human') {
    const again = file ? runnable(file) : 'the same command';
    message +=
      `${/[.!?]$/.test(message) ? '' : '.'} Answer it ` +
      `(edit the task file or ${file ? path.basename(file) : 'kanban.yaml'}), then run again to continue: ${again}`;
  }
  // A budget stop already names its spend.
  if (spent && !message.includes(spent)) message += ` (The run spent ${spent}.)`;
  return { kind, exitCode: error.exitCode, message };
}

/** The final line as printed: success on its own, a failure prefixed with the program name (pure). */
export function outcomeLine(outcome: Outcome): string {
  // The message may quote an agent (a Manager's escalation): no escape sequence reaches the terminal.
  const message = cleanLine(outcome.message);
  return outcome.exitCode === 0 ? message : `kanban-supervisor: ${message}`;
}

/**
 * Print a run's final line: a success on stdout (stderr under --json, whose stdout holds only
 * events), a failure on stderr. The one place every exit of a run is worded.
 */
export function printOutcome(
  outcome: Outcome,
  mode: ReporterMode,
  style: Style,
  streams: { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream },
): void {
  const line = outcomeLine(outcome);
  if (outcome.exitCode !== 0 || mode === 'json') writeIfOpen(streams.stderr, `${line}\n`);
  else writeIfOpen(streams.stdout, `${mode === 'live' ? `${style.green('✓')} ` : ''}${line}\n`);
}
