import path from 'node:path';
import type { RunAttempt } from './agent/attempt.js';
import { stopLeftoverAgent } from './agent/record.js';
import { checkWritable, removeDeadTemps } from './board/writable.js';
import { realBoardPath } from './board/locate.js';
import { isFinished, readBoard } from './board/read.js';
import { systemClock, type Clock } from './context.js';
import { buildRunContext } from './run-context.js';
import { InputError } from './errors.js';
import { Stopper } from './stop.js';
import { resumeKnownWait } from './retry/not-format.js';
import { EventLog, type EventListener } from './log/events.js';
import { OutputStore } from './log/output-store.js';
import { acquireBoardLock } from './lock/lock.js';
import { validate } from './commands/validate.js';
import { problemsMessage } from './role/role.js';
import { superviseBoard, type LoopResult } from './loop.js';
import { resolveSettings, type SettingsFlags } from './settings.js';
import { runId as newRunId } from './util/time.js';

/** Options of a supervised run: the board, the flags, and the seams tests replace. */
export interface SuperviseOptions extends SettingsFlags {
  file: string;
  once?: boolean;
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
 */
export async function supervise(options: SuperviseOptions): Promise<SuperviseResult> {
  const started = performance.now();
  const file = realBoardPath(options.file);
  const board = readBoard(file); // bad input fails with exit 2 before anything is locked or written
  const finished = (loop: LoopResult, runId: string | null, now = readBoard(file)): SuperviseResult => ({ ...loop, file, runId, elapsedMs: performance.now() - started, current: now.current, phase: now.phase ?? null });
  if (isFinished(board)) return finished({ steps: 0, reason: 'done' }, null, board);
  // Every problem validate would find stops the run here, before an agent has run.
  const check = validate({ file, ...(options.env && { env: options.env }) });
  if (check.problems.length) throw new InputError(problemsMessage(check.problems));

  checkWritable(file);
  const stopper = options.stopper ?? new Stopper();
  const release = await acquireBoardLock(path.join(board.dir, '.kanban-supervisor'), path.basename(file), (lost) => stopper.request(lost));
  const unlisten = stopper.listen(options.signals ?? process);
  const clock = options.clock ?? systemClock;
  const runId = newRunId(clock.now(), process.pid);
  const events = new EventLog(board.dir, runId, options.listeners ?? [], () => clock.now());
  let output: OutputStore | undefined;
  try {
    const settings = resolveSettings(board.settings, options);
    removeDeadTemps(file);
    const leftover = await stopLeftoverAgent(board.dir, settings.killGraceMs);
    output = new OutputStore(board.dir, runId, settings.retention);
    const ctx = buildRunContext({ file, dir: board.dir, runId, flags: options, env: options.env ?? process.env, events, output, stop: stopper.signals, clock, ...(options.runAttempt && { runAttempt: options.runAttempt }), ...(options.onLine && { onLine: options.onLine }) });
    events.emit('run_started', { board: path.basename(file), pid: process.pid, ...(leftover && { stoppedLeftoverAgent: leftover }) });
    const result = await resumeKnownWait(ctx, settings).then(() => superviseBoard(ctx)).catch((error: unknown) => {
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

