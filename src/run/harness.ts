import path from 'node:path';
import { runAttempt as realRunAttempt } from '../agent/attempt.js';
import { stopLeftoverAgent, stopLeftoverTries } from '../agent/record.js';
import { agentTag, TAG_VARIABLE } from '../agent/tag.js';
import { RUN_PLACE, TRY_PLACE } from '../attempt-output/places.js';
import { checkBoard } from '../board/check.js';
import { realBoardPath } from '../board/locate.js';
import { boardOf, readBoardSeen, type Board, type Problem, type WrittenText } from '../board/read.js';
import { problemsMessage } from '../board/role.js';
import { checkWritable, removeDeadTemps } from '../board/writable.js';
import { systemClock, type Clock, type RunContext } from '../loop/context.js';
import { InputError } from '../errors.js';
import { EventLog } from '../events/log.js';
import { findRepo } from '../git/open.js';
import { StepCommits } from '../git/step-commits.js';
import { OutputStore } from '../log/output-store.js';
import { acquireBoardLock } from '../lock/lock.js';
import { StepHistory } from '../events/step-history.js';
import { createSchemaCompiler } from '../schemas.js';
import { resolveSettings, type Settings } from '../board/settings.js';
import { Spend } from '../spend.js';
import { runId as newRunId } from '../util/time.js';
import { maskText } from '../util/secrets.js';
import { boardSecrets } from '../board/secret-values.js';
import type { RunOptions } from './options.js';
import { Stopper } from './stop.js';
import { startTimeLimit } from './time-limit.js';

/**
 * What is being opened: a `run` (also resident) owns the board — checked whole, locked, taken
 * over from a crashed run, with the Manager's history — while a `try` runs beside it, keeping
 * its events and output apart and touching nothing a run owns.
 */
export type RunKind = 'run' | 'try';

/** An open run: its context, the board as read at its start, and that read's text and parse for the first step. */
export interface OpenRun {
  ctx: RunContext;
  board: Board;
  seen: WrittenText;
  stopper: Stopper;
}

/**
 * The one harness of `run`, `--watch` and `try` (SPEC §5): read the board once, make the
 * pre-flight check, then build the run's context — stopper, lock, crash takeover, event log,
 * output store, history — hand it to `body`, and close everything again whatever happens.
 * Bad input fails with exit 2 before anything is locked or written.
 */
export async function withRun<T>(kind: RunKind, options: RunOptions, body: (run: OpenRun) => Promise<T>): Promise<T> {
  const file = realBoardPath(options.file);
  const env = options.env ?? process.env;
  const seen = options.seen ?? readBoardSeen(file);
  const board = boardOf(file, seen.text, seen);
  // Built once: whatever an agent prints reaches events, the Log, the console and the outcome masked.
  const secrets = boardSecrets(board.dir, env);
  const onLine = options.onLine && ((line: string) => options.onLine?.(maskText(line, secrets)));
  // Every problem validate would find stops a run here, before an agent has run; its warnings are told once the run starts.
  const warnings = kind === 'run' ? preflight(file, env, seen) : [];
  const stopper = options.stopper ?? new Stopper();
  // Listening first: a signal while the lock is taken is an interrupt, not a kill that leaves the lock behind.
  const unlisten = stopper.listen(options.signals ?? process);
  let release = async (): Promise<void> => {};
  let events: EventLog | undefined;
  let output: OutputStore | undefined;
  let stopTimer = (): void => {};
  try {
    if (kind === 'run')
      release = await acquireBoardLock(path.join(board.dir, '.kanban-supervisor'), path.basename(file), (lost) =>
        stopper.request(lost),
      );
    const clock = options.clock ?? systemClock;
    const runId = newRunId(clock.now(), process.pid);
    const place = kind === 'run' ? RUN_PLACE : TRY_PLACE;
    // The Manager's history: earlier runs from the event log's tail, then this run's events as they come.
    const history = kind === 'run' ? StepHistory.fromBoard(board.dir) : undefined;
    events = new EventLog(
      board.dir,
      runId,
      [...(history ? [history.record] : []), ...(options.listeners ?? [])],
      () => clock.now(),
      place.events,
      secrets,
    );
    const settings = resolveSettings(board.settings, options);
    // A batch job's budget counts from here: the lock is held and the run is about to start.
    const deadline =
      kind === 'run' && settings.maxTimeMs !== null ? new Date(clock.now().getTime() + settings.maxTimeMs) : undefined;
    if (deadline) stopTimer = startTimeLimit(deadline, settings.maxTimeMs as number, clock, stopper);
    if (kind === 'run') removeDeadTemps(file);
    // Each takes over only its own records: a run never stops a live try's agent, nor a try a run's.
    const leftover =
      kind === 'run'
        ? await stopLeftoverAgent(board.dir, settings.killGraceMs)
        : (await stopLeftoverTries(board.dir, settings.killGraceMs))[0];
    output = new OutputStore(board.dir, runId, settings.retention, place.runs);
    const git =
      kind === 'run' && settings.gitCommit
        ? await openCommits(file, runId, env, stopper, settings, events, clock)
        : undefined;
    const ctx: RunContext = {
      file,
      dir: board.dir,
      runId,
      flags: options,
      env,
      runAttempt: options.runAttempt ?? realRunAttempt,
      events,
      output,
      schemas: createSchemaCompiler(),
      stop: stopper.signals,
      clock,
      spend: options.spend ?? new Spend(),
      limits: { waitedMs: 0, fallbacks: 0 },
      ...(deadline && { deadline }),
      ...(onLine && { onLine }),
      ...(history && { history }),
      ...(git instanceof StepCommits && { git }),
    };
    events.emit('run_started', {
      board: path.basename(file),
      pid: process.pid,
      ...(leftover && { stoppedLeftoverAgent: leftover }),
      ...(options.trying && { try: options.trying }),
    });
    for (const warning of warnings)
      events.emit('warning', {
        file: warning.file,
        ...(warning.line !== undefined && { line: warning.line }),
        message: warning.message,
      });
    if (typeof git === 'string') events.emit('warning', { file: path.basename(file), message: git });
    return await body({ ctx, board, seen, stopper }).catch((error: unknown) => {
      // Whatever was underway, a stop (a signal, a lost lock, closed output) is what the person must hear about.
      const thrown = stopper.reason ?? error;
      if (thrown instanceof Error) thrown.message = maskText(thrown.message, secrets);
      throw thrown;
    });
  } finally {
    stopTimer();
    output?.dispose();
    events?.close();
    unlisten();
    await release();
  }
}

// validate's checks (board/check.ts): a problem stops the run; warnings are returned to be told.
function preflight(file: string, env: NodeJS.ProcessEnv, seen: WrittenText): Problem[] {
  const check = checkBoard({ file, env, seen });
  if (check.problems.length) throw new InputError(problemsMessage(check.problems));
  checkWritable(file);
  return check.warnings;
}

// supervisor.git_commit: the board's repository and identity, checked before any agent runs; no repository (or no git) is one warning.
async function openCommits(
  file: string,
  runId: string,
  env: NodeJS.ProcessEnv,
  stopper: Stopper,
  settings: Settings,
  events: EventLog,
  clock: Clock,
): Promise<StepCommits | string> {
  const run = {
    file,
    runId,
    env,
    stop: stopper.signals,
    timeoutMs: settings.gitTimeoutMs,
    graceMs: settings.killGraceMs,
    events,
    now: () => clock.now(),
  };
  const found = await findRepo(file, {
    cwd: path.dirname(file),
    env,
    timeoutMs: run.timeoutMs,
    graceMs: run.graceMs,
    tag: agentTag({ board: file, run: runId, step: 0, role: 'git' }, env[TAG_VARIABLE]),
    stop: run.stop,
  });
  if ('off' in found) return `supervisor.git_commit is on, but ${found.off}: the run goes on without commits.`;
  return new StepCommits(found.repo, run);
}
