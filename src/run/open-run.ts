import path from 'node:path';
import { runAttempt } from '../agent/attempt.js';
import { stopLeftoverAgent, stopLeftoverTries } from '../agent/record.js';
import { RUN_PLACE, TRY_PLACE } from '../attempt-output/places.js';
import { checkBoard, startEnv } from '../board/check.js';
import type { Board, Problem } from '../board/read-board.js';
import { problemsMessage } from '../board/role.js';
import { resolveSettings, type Settings } from '../board/settings.js';
import { checkWritable, removeDeadTemps } from '../board/writable.js';
import { InputError } from '../errors.js';
import { EventLog } from '../events/log.js';
import { acquireBoardLock } from '../lock/lock.js';
import { OutputStore } from '../log/output-store.js';
import { appendEntry, startLog } from '../log/supervisor-log.js';
import type { BoardSource } from '../loop/board-source.js';
import type { Capabilities } from '../loop/capability-fanout.js';
import { recordStop } from '../loop/loop.js';
import type { Capability, RunContext, RunKind, RunOptions, SeamLists } from '../loop/context.js';
import { Stopper } from '../loop/stopper.js';
import { systemClock } from '../loop/world.js';
import { createReporter } from '../progress/reporter.js';
import { CAPABILITY_EVENTS } from './capability-list.js';
import { createSchemaCompiler } from '../schemas.js';
import { runId as newRunId } from '../util/time.js';
import { maskedHead, maskText } from '../util/secrets.js';
import { loadSeams } from './capability-list.js';
import { SHOWN_MAX } from '../agents/index.js';
import { boardSecrets } from '../board/secret-values.js';

/** A run or a try about to hold its board: the board as its start read it, and its capabilities. */
export interface Opening {
  kind: RunKind;
  options: RunOptions;
  source: BoardSource;
  board: Board;
  capabilities: Capabilities;
  /** A try: the role tried (its run_started event says so). */
  trying?: string;
}

/**
 * The one harness of `run`, `--watch` and `try` (SPEC §5). A run owns the board — checked whole
 * first (bad input is exit 2 before anything is locked or written), locked, taken over from a
 * crashed run — while a try runs beside it, its events and output kept apart. Then the context
 * is built, run_started recorded, the capabilities told, and `body` given the context; whatever
 * happens, everything is closed again. The one place a run's writers (events, output, the live
 * line) are made.
 */
export async function openRun<T>(
  opening: Opening,
  body: (ctx: RunContext, settings: Settings) => Promise<T>,
): Promise<T> {
  const { kind, options, source, board, capabilities } = opening;
  const given = options.io?.env ?? process.env;
  const seams = options.seams ?? {};
  // Every problem validate would find stops a run here; its warnings are told once the run starts.
  // The Log exists before any fenced agent runs, so its fence binds it read-only (no forged Log).
  const lists = await loadSeams((dir) => startLog(dir));
  const warnings = kind === 'run' ? preflight(source, given, lists) : [];
  // What every program the run starts gets: PATH without what a fenced agent could write (the preflight said so).
  const env = startEnv(source.dir, given, lists.boardChecks());
  const stopper = new Stopper();
  const closed = new AbortController();
  // Listening first: a signal while the lock is taken is an interrupt, not a kill that leaves the lock behind.
  const unlisten = stopper.listen(seams.signals ?? process);
  // A closed stdout or stderr stops the run in order (exit 74), like a signal.
  const unwatch = options.io ? stopper.watchOutput(options.io) : () => {};
  const { show } = options;
  const reporter = show && createReporter(show.mode, show.out, CAPABILITY_EVENTS, { colour: show.colour });
  // Built once: whatever an agent prints reaches events, the Log, the live line and the outcome masked.
  const secrets = boardSecrets(source.dir, env);
  let release = async (): Promise<void> => {};
  let events: EventLog | undefined;
  let output: OutputStore | undefined;
  try {
    const state = path.join(source.dir, '.kanban-supervisor');
    if (kind === 'run')
      release = await acquireBoardLock(state, path.basename(source.file), (lost) => stopper.request(lost));
    const clock = seams.clock ?? systemClock;
    const runId = newRunId(clock.now(), process.pid);
    const place = kind === 'run' ? RUN_PLACE : TRY_PLACE;
    const listeners = [...(reporter ? [reporter.event] : []), capabilities.event];
    events = new EventLog(source.dir, runId, CAPABILITY_EVENTS, listeners, () => clock.now(), place.events, secrets);
    const settings = resolveSettings(board.settings, options.flags ?? {});
    if (kind === 'run') removeDeadTemps(source.file);
    // Each takes over only its own records: a run never stops a live try's agent, nor a try a run's.
    const leftover =
      kind === 'run'
        ? await stopLeftoverAgent(source.dir, settings.killGraceMs)
        : (await stopLeftoverTries(source.dir, settings.killGraceMs))[0];
    output = new OutputStore(source.dir, runId, settings.retention, place.runs);
    const ctx: RunContext = {
      board: source,
      runId,
      flags: options.flags ?? {},
      events,
      output,
      world: {
        runAttempt: seams.runAttempt ?? runAttempt,
        env,
        clock,
        stop: stopper.signals,
        ...(reporter && { onLine: (line: string) => reporter.line(maskedHead(line, SHOWN_MAX, secrets)) }),
        log: (entry) => appendEntry(source.dir, { time: clock.now(), ...entry }, secrets),
      },
      schemas: createSchemaCompiler(),
      // The Log exists before any fenced agent runs, so its fence binds it read-only (no forged Log).
      lists,
      capabilities,
    };
    events.emit('run_started', {
      board: path.basename(source.file),
      pid: process.pid,
      ...(leftover && { stoppedLeftoverAgent: leftover }),
      ...(opening.trying && { try: opening.trying }),
    });
    for (const { file, line, message } of warnings)
      events.emit('warning', { file, ...(line !== undefined && { line }), message });
    const started = {
      ctx,
      settings,
      stop: (error: Parameters<Stopper['request']>[0]) => stopper.request(error),
      ...deadlineOf(capabilities),
    };
    await capabilities.runStarted({ ...started, closed: closed.signal }).catch((error: unknown) => {
      recordStop(ctx, stopper.reason ?? error, 0);
      throw error;
    });
    return await body(ctx, settings);
  } catch (error) {
    // Whatever was underway, a stop (a signal, a lost lock, closed output) is what the person must hear about.
    const thrown = stopper.reason ?? error;
    if (thrown instanceof Error) thrown.message = maskText(thrown.message, secrets);
    throw thrown;
  } finally {
    closed.abort();
    output?.dispose();
    events?.close();
    reporter?.close();
    unlisten();
    unwatch();
    await release();
  }
}

// validate's checks (board/check.ts) on the read the run starts from: a problem stops the run.
function preflight(source: BoardSource, env: NodeJS.ProcessEnv, lists: SeamLists): Problem[] {
  const check = checkBoard({ file: source.file, env, ...(source.seen && { seen: source.seen }) }, lists.boardChecks());
  if (check.problems.length) throw new InputError(problemsMessage(check.problems));
  checkWritable(source.file);
  return check.warnings;
}

// The run's deadline as its capabilities know it once the board is read (--max-time): a value handed to all.
function deadlineOf(capabilities: Required<Capability>): { deadline?: Date } {
  const deadline = capabilities.deadline();
  return deadline ? { deadline } : {};
}
