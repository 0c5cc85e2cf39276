import type { RunAttempt } from '../agent/attempt.js';
import type { SettingsFlags } from '../board/settings.js';
import type { ReporterMode } from '../progress/style.js';
import type { Clock } from './world.js';

/** A `run` (resident or not) owns the board; a `try` runs one role beside it, touching nothing a run owns. */
export type RunKind = 'run' | 'try';

/** What the command line says of a run: settings over the board's, --once, and each capability's own flags by name. */
export interface Flags extends SettingsFlags {
  once?: boolean;
  /** --watch, --on-complete, --on-halt…: read by the capability they belong to. */
  [flag: string]: unknown;
}

/** Where a command talks: `run` shows progress on stdout, `try` on stderr, so both may be terminals. */
export interface RunIO {
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
  env: NodeJS.ProcessEnv;
}

/** How a run or a try is started: the board, what the command line says, where it talks, the seams tests replace. */
export interface RunOptions {
  file: string;
  flags?: Flags;
  /** Where the run talks, and the environment agents inherit (the process's by default). */
  io?: RunIO;
  /** How progress shows, and on which stream (nothing shows without it). */
  show?: { mode: ReporterMode; colour: boolean; out: NodeJS.WriteStream };
  /** Replaced by tests: the attempt runner, the clock, where signals come from, a capability's own (by name). */
  seams?: { runAttempt?: RunAttempt; clock?: Clock; signals?: NodeJS.EventEmitter; [seam: string]: unknown };
}
