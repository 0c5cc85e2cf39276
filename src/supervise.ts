import path from 'node:path';
import type { RunAttempt } from './agent/attempt.js';
import { stopLeftoverAgent } from './agent/record.js';
import { checkWritable, removeDeadTemps } from './board/writable.js';
import { realBoardPath } from './board/locate.js';
import { isFinished, readBoard, type Board } from './board/read.js';
import { systemClock, type Clock, type RunContext } from './context.js';
import { buildRunContext } from './run-context.js';
import { InputError } from './errors.js';
import { Stopper } from './stop.js';
import { resumeKnownWait } from './retry/not-format.js';
import { EventLog } from './events/log.js';
import type { EventListener } from './events/types.js';
import { OutputStore } from './log/output-store.js';
import { acquireBoardLock } from './lock/lock.js';
import { validate } from './commands/validate.js';
import { problemsMessage } from './role/role.js';
import { superviseBoard, type LoopResult } from './loop.js';
import { StepHistory } from './events/step-history.js';
import { residentRun } from './watch/resident.js';
import { fsDirWatcher, type DirWatcher } from './watch/watcher.js';
import { resolveSettings, type SettingsFlags } from './settings.js';
import { runId as newRunId } from './util/time.js';
import type { Spend } from './spend.js';

/** Options of a supervised run: the board, the flags, and the seams tests replace. */
export interface SuperviseOptions extends SettingsFlags {
  file: string;
  /** kanban.yaml as the caller has just read it (at its real path), so it is not read twice. */
  board?: Board;
  /** Where the run's spend is added up (the caller shows it in the outcome); one is made if not given. */
  spend?: Spend;
  once?: boolean;
  /** Stay resident where the run would end, and carry on when a person edits the board (SPEC §5b). */
  watch?: boolean;
  /** How a resident run watches folders (fs.watch by default); tests pass their own. */
  watcher?: DirWatcher;
  listeners?: EventListener[];
  /** Replaceable for tests of the loop without real agents. */
  runAttempt?: RunAttempt;
  env?: NodeJS.ProcessEnv;
  /** Where signals come from (the process, by default). */
  signals?: NodeJS.EventEmitter;
  /** How the caller asks the run to stop too (closed output); one is made if not given. */
  stopper?: Stopper;
  onLine?: (line: string) => void;
  clock?: Clock;
}

/** How a run ended normally, and where. */
export type SuperviseResult = LoopResult & { file: string; runId: string | null; elapsedMs: number; current: string | null; phase: string | null };

/**
 * Run a board until the Manager says there is no next task (or one step with --once): take
 * the board folder's lock, stop what a crashed run left, then loop. Throws a SupervisorError
 * on every other outcome. A board with nothing to run is answered without locking or writing.
 * With `watch`, it stays resident instead of ending (watch/resident.ts) until it is stopped.
 */
export async function supervise(options: SuperviseOptions): Promise<SuperviseResult> {
  const started = performance.now();
  const file = options.board?.file ?? realBoardPath(options.file);
  const board = options.board ?? readBoard(file); // bad input fails with exit 2 before anything is locked or written
  const finished = (loop: LoopResult, runId: string | null, now = readBoard(file)): SuperviseResult => ({ ...loop, file, runId, elapsedMs: performance.now() - started, current: now.current, phase: now.phase ?? null });
  if (options.watch && options.once) throw new InputError('--watch and --once cannot be used together: --watch keeps running after the board is done, --once stops after one step. Pass one of them.');
  // A resident run takes the lock and waits even on a board with nothing to run yet.
  if (!options.watch && isFinished(board)) return finished({ steps: 0, reason: 'done' }, null, board);
  // Every problem validate would find stops the run here, before an agent has run.
  const check = validate({ file, ...(options.env && { env: options.env }) });
  if (check.problems.length) throw new InputError(problemsMessage(check.problems));

  checkWritable(file);
  const stopper = options.stopper ?? new Stopper();
  const release = await acquireBoardLock(path.join(board.dir, '.kanban-supervisor'), path.basename(file), (lost) => stopper.request(lost));
  const unlisten = stopper.listen(options.signals ?? process);
  const clock = options.clock ?? systemClock;
  const runId = newRunId(clock.now(), process.pid);
  // The Manager's history: earlier runs from the event log's tail, then this run's events as they come.
  const history = StepHistory.fromBoard(board.dir);
  const events = new EventLog(board.dir, runId, [history.record, ...(options.listeners ?? [])], () => clock.now());
  let output: OutputStore | undefined;
  try {
    const settings = resolveSettings(board.settings, options);
    removeDeadTemps(file);
    const leftover = await stopLeftoverAgent(board.dir, settings.killGraceMs);
    output = new OutputStore(board.dir, runId, settings.retention);
    const ctx: RunContext = { ...buildRunContext({ file, dir: board.dir, runId, flags: options, env: options.env ?? process.env, events, output, stop: stopper.signals, clock, ...(options.runAttempt && { runAttempt: options.runAttempt }), ...(options.onLine && { onLine: options.onLine }), ...(options.spend && { spend: options.spend }) }), history };
    events.emit('run_started', { board: path.basename(file), pid: process.pid, ...(leftover && { stoppedLeftoverAgent: leftover }) });
    const loop = () => (options.watch ? residentRun(ctx, { watcher: options.watcher ?? fsDirWatcher }) : superviseBoard(ctx));
    const result = await resumeKnownWait(ctx, settings).then(loop).catch((error: unknown) => {
      // Whatever was underway, a stop (a signal, a lost lock, closed output) is what the person must hear about.
      throw stopper.reason ?? error;
    });
    return finished(result, runId);
  } finally {
    output?.dispose();
    events.close();
    unlisten();
    await release();
  }
}

