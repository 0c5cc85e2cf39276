import type { RunAttempt } from '../agent/attempt.js';
import type { WrittenText } from '../board/read.js';
import type { Clock } from '../loop/context.js';
import type { EventListener } from '../events/types.js';
import type { SettingsFlags } from '../board/settings.js';
import type { Spend } from '../spend.js';
import type { Stopper } from './stop.js';
import type { DirWatcher } from './watch/watcher.js';

/**
 * How a run, a resident run or a `try` is started: the board, the settings the command line
 * gives, where it talks, and the seams tests replace. The one options type of the harness.
 */
export interface RunOptions extends SettingsFlags {
  file: string;
  /** kanban.yaml's text and parse as the caller has just read them, so the board is read once. */
  seen?: WrittenText;
  once?: boolean;
  /** Stay resident where the run would end, and carry on when a person edits the board (SPEC §5b). */
  watch?: boolean;
  /** `try`: the role tried (recorded in its run_started event). */
  trying?: string;
  /** The environment agents inherit (the process's by default). */
  env?: NodeJS.ProcessEnv;
  listeners?: EventListener[];
  /** Called with the running agent's latest non-blank output line (the live status line shows it). */
  onLine?: (line: string) => void;
  /** Where the run's spend is added up (the caller shows it in the outcome); one is made if not given. */
  spend?: Spend;
  /** How the caller asks the run to stop too (closed output); one is made if not given. */
  stopper?: Stopper;
  /** Where signals come from (the process, by default). */
  signals?: NodeJS.EventEmitter;
  clock?: Clock;
  /** Replaceable for tests of the loop without real agents. */
  runAttempt?: RunAttempt;
  /** How a resident run watches folders (fs.watch by default); tests pass their own. */
  watcher?: DirWatcher;
}
