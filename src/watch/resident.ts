import { lstatSync } from 'node:fs';
import path from 'node:path';
import { BoardReadError } from '../board/board-file.js';
import { checkBoard } from '../board/check.js';
import { formatProblem, type Problem } from '../board/read-board.js';
import { resolveSettings, type Settings } from '../board/settings.js';
import { ExitCode, LimitWaitError, outcomeKind, SupervisorError, type OutcomeKind } from '../errors.js';
import { waitingFile, type Waiting } from '../log/waiting.js';
import type { LoopEnd, RunContext } from '../loop/context.js';
import { recordStop } from '../loop/loop.js';
import { idleStop } from '../loop/stopper.js';
import { rebase, snapshot, watchSet } from './files.js';
import { waitForChange, type WatchVia } from './wait-for-edit.js';
import type { DirWatcher } from './watcher.js';

/** What a resident run needs besides its context: the folder watcher (fs.watch, or a test's). */
export interface ResidentDeps {
  watcher: DirWatcher;
  /** How long the files must be quiet before a change is acted on. */
  debounceMs: number;
}

/** Where a pass of the loop ended: what a run without --watch would have ended with. */
export interface PassEnd {
  outcome: OutcomeKind;
  exitCode: number;
  /** The outcome in words: the message the run would have ended with. */
  reason: string;
  /** When the wait ends by itself: a usage limit's reset. */
  until?: Date;
}

// Outcomes a person's edit can change: everything else (a signal,
// a lost lock, an unwritable board, a bug) ends the run.
const WAITABLE: readonly number[] = [
  ExitCode.badInput,
  ExitCode.retriesExhausted,
  ExitCode.haltedForHuman,
  ExitCode.guard,
  ExitCode.limitWait,
];

/**
 * Where the loop ended, if an edit can change that (see README.md here): hold the lock, say what
 * the run waits for, and return once a person's edit of kanban.yaml, a task or a role file
 * validates (or a usage limit's reset comes): 'again'. Otherwise undefined: the run ends so.
 */
export async function waitForPerson(end: LoopEnd, deps: ResidentDeps): Promise<'again' | undefined> {
  const { ctx } = end;
  const ended = passEnd(ctx, end);
  if (!ended) return undefined;
  try {
    await waitForEdit(ctx, deps, ended);
  } catch (error) {
    idleStop(error, ended.until ? "an edit of the board or the usage limit's reset" : 'an edit of the board');
    recordStop(ctx, error, 0);
    throw error;
  } finally {
    waitingFile.clear(ctx.board.dir); // never throws: a folder in its place is left for the person
  }
  return 'again';
}

// What a run without --watch would have ended with, if an edit can change it.
function passEnd(ctx: RunContext, end: LoopEnd): PassEnd | undefined {
  if (!('error' in end)) return { outcome: 'done', exitCode: 0, reason: doneReason(ctx) };
  const { error } = end;
  if (ctx.world.stop.interrupt.aborted || !(error instanceof SupervisorError) || !WAITABLE.includes(error.exitCode))
    return undefined;
  return {
    outcome: outcomeKind(error.exitCode),
    exitCode: error.exitCode,
    reason: error.message.replace(/\s*\n\s*/g, ' '),
    ...(error instanceof LimitWaitError && error.resetAt && { until: error.resetAt }),
  };
}

// Wait for an edit that validates (or a usage limit's reset), reporting each one that does not.
async function waitForEdit(ctx: RunContext, deps: ResidentDeps, ended: PassEnd): Promise<void> {
  const since = ctx.world.clock.now();
  const at = (relative: string) => path.join(ctx.board.dir, relative);
  let set = watchSet(ctx.board.file);
  let baseline = snapshot(ctx.board.dir, set.files);
  const waiting = {
    for: 'board_change' as const,
    reason: ended.reason,
    outcome: ended.outcome,
    exitCode: ended.exitCode,
    since: since.toISOString(),
    ...(ended.until && { until: ended.until.toISOString() }),
    run: ctx.runId,
    pid: process.pid,
  };
  const tell = stateTeller(ctx);
  tell(waiting);
  let told: WatchVia | undefined;
  for (;;) {
    const onWatching = (how: WatchVia) => {
      if (told?.via === how.via) return; // once per wait, and again only if fs.watch fails
      told = how;
      ctx.events.emit('waiting', { ...waiting, watching: set.files.length, ...how });
    };
    const settings = currentSettings(ctx);
    const wake = await waitForChange(
      {
        clock: ctx.world.clock,
        stop: ctx.world.stop.interrupt,
        watcher: deps.watcher,
        set,
        at,
        snapshot: (files, previous) => snapshot(ctx.board.dir, files, previous),
        debounceMs: deps.debounceMs,
        pollMs: settings.watchPollMs,
        ...(ended.until && { until: ended.until.getTime() }),
        onWatching,
      },
      baseline,
    );
    baseline = wake.snapshot;
    const files = wake.by === 'change' ? wake.files : [];
    const problem = wake.by === 'change' ? firstProblem(ctx) : undefined;
    if (problem) {
      // waiting.json first: whoever hears the event can read the state it announces.
      tell({ ...waiting, invalid: formatProblem(problem.problem) });
      ctx.events.emit('edit_invalid', {
        files,
        file: problem.problem.file,
        ...(problem.problem.line !== undefined && { line: problem.problem.line }),
        problem: problem.problem.message,
        problems: problem.count,
      });
      // The edit may list other tasks: watch what the board names now.
      set = watchSet(ctx.board.file);
      baseline = rebase(ctx.board.dir, set.files, baseline);
      continue;
    }
    ctx.events.emit('woke', { by: wake.by, files, waitedMs: ctx.world.clock.now().getTime() - since.getTime() });
    return;
  }
}

// waiting.json written, or — a folder or a link in its place — said once as a warning, and the
// wait goes on: a bad state file is a problem for the person, not a reason to stop waiting.
function stateTeller(ctx: RunContext): (waiting: Waiting) => void {
  let warned = false;
  return (waiting) => {
    try {
      waitingFile.write(ctx.board.dir, waiting);
    } catch (error) {
      if (!(error instanceof SupervisorError) || warned) return;
      warned = true;
      ctx.events.emit('warning', {
        file: waitingFile.name,
        message:
          `${inPlace(path.join(ctx.board.dir, waitingFile.name)) ?? error.message.replace(/\s*\n\s*/g, ' ')}: ` +
          `remove it, so that \`status\` can tell what this run waits for. Still waiting`,
      });
    }
  };
}

// What stands where a file should be, in words, if it is not a file.
function inPlace(file: string): string | undefined {
  try {
    const stats = lstatSync(file);
    if (stats.isDirectory()) return 'is a folder, not a file';
    if (stats.isSymbolicLink()) return 'is a symlink, which is never written through';
    return stats.isFile() ? undefined : 'is not a regular file';
  } catch {
    return undefined;
  }
}

// What `validate` would say first, and how many problems it found; or a stop before the next step (the budget).
// A board moved away (an editor's save, a `git checkout`) is such a problem: put back, it is read again.
function firstProblem(ctx: RunContext): { problem: Problem; count: number } | undefined {
  try {
    return boardProblem(ctx);
  } catch (error) {
    if (!(error instanceof BoardReadError)) throw error;
    const why =
      error.code === 'ENOENT'
        ? 'no such file: it was moved or deleted. Put it back; the run carries on once it validates.'
        : error.message.replace(`${error.file}: `, '');
    return { problem: { file: path.basename(ctx.board.file), message: why }, count: 1 };
  }
}

function boardProblem(ctx: RunContext): { problem: Problem; count: number } | undefined {
  const { problems } = checkBoard({ file: ctx.board.file, env: ctx.world.env }, ctx.lists.boardChecks());
  if (problems.length) return { problem: problems[0] as Problem, count: problems.length };
  const board = ctx.board.read();
  const stop = ctx.capabilities.beforeStep(board, resolveSettings(board.settings, ctx.flags));
  return stop && { problem: { file: path.basename(ctx.board.file), message: stop.edit }, count: 1 };
}

function doneReason(ctx: RunContext): string {
  try {
    const board = ctx.board.read();
    return board.current === null
      ? 'the board has no next task'
      : `phase is complete, so ${board.current} (current) is not run`;
  } catch {
    return 'the board has no next task';
  }
}

// The settings as far as the board can be read now (an edit may have broken it meanwhile).
function currentSettings(ctx: RunContext): Settings {
  try {
    return resolveSettings(ctx.board.read().settings, ctx.flags);
  } catch (error) {
    if (!(error instanceof SupervisorError)) throw error;
    return resolveSettings({}, ctx.flags);
  }
}
