import path from 'node:path';
import { realBoardPath } from '../board/locate.js';
import { boardOf, isFinished, readBoardSeen } from '../board/read.js';
import { SupervisorError } from '../errors.js';
import { settingsFlags } from './flags.js';
import type { Hook } from '../hooks/hook.js';
import { failedOutcome, finishedOutcome, outcomeLine, printOutcome } from '../progress/outcome.js';
import type { BoardSettings } from '../board/read.js';
import type { SettingsFlags } from '../board/settings.js';
import type { Notifier } from '../notify/notifier.js';
import { createStyle, reporterMode, wantsColour } from '../progress/style.js';
import type { RunEnding, RunIO } from '../run/session.js';
import { writeIfOpen } from '../util/write.js';

/** The flags of `kanban-supervisor run`, as cli.ts parsed them. */
export interface RunFlags {
  'max-retries'?: string;
  'max-steps'?: string;
  'max-cost'?: string;
  'max-time'?: string;
  timeout?: string;
  once?: boolean;
  watch?: boolean;
  'dry-run'?: boolean;
  json?: boolean;
  quiet?: boolean;
  'no-color'?: boolean;
  'on-complete'?: string;
  'on-halt'?: string;
  notify?: string[];
}

/**
 * `kanban-supervisor run`: turn flags into options, run the board (run/session.ts), print
 * the outcome in one place and run the --on-complete / --on-halt hook; returns the exit code.
 * A board with nothing to run is answered here, before anything a step needs (execa, the lock,
 * the reporters) is loaded: that is most of a run's start-up (bench/README.md, start-up).
 */
export async function runCommand(
  file: string,
  flags: RunFlags,
  io: RunIO = { stdout: process.stdout, stderr: process.stderr, env: process.env },
): Promise<number> {
  const started = performance.now();
  const settings = settingsFlags(flags);
  if (flags['dry-run']) {
    const [{ dryRun }, { formatDryRun }] = await Promise.all([import('./dry-run.js'), import('./dry-run-text.js')]);
    const plan = await dryRun({ file, ...settings, env: io.env });
    io.stdout.write(flags.json ? `${JSON.stringify(plan)}\n` : formatDryRun(plan));
    return 0;
  }
  const hooks = await parseHooks(flags, path.dirname(path.resolve(file)), io.env);
  const mode = reporterMode({
    json: flags.json === true,
    quiet: flags.quiet === true,
    isTTY: io.stdout.isTTY === true,
    env: io.env,
  });
  const colour = mode === 'live' && wantsColour(io.stdout.isTTY === true, io.env, flags['no-color'] === true);
  const style = createStyle(colour);
  let ending: RunEnding;
  let notifier: Notifier | undefined;
  // A board found finished tells nobody: a scheduler starting it again and again would page a person each time.
  let heard = true;
  try {
    const real = realBoardPath(file);
    const seen = readBoardSeen(real); // the board is read once here; the run and its first step use this read
    const board = boardOf(real, seen.text, seen);
    // A resident run (--watch) waits on a finished board: it is run like any other.
    if (isFinished(board) && flags.watch !== true) {
      const context = { file: board.file, run: '', steps: 0, task: '' };
      ending = {
        outcome: finishedOutcome(
          {
            reason: 'done',
            steps: 0,
            elapsedMs: performance.now() - started,
            current: board.current,
            phase: board.phase ?? null,
          },
          file,
        ),
        context,
      };
      heard = false;
    } else {
      notifier = await openNotifier(real, board.settings, settings, io);
      const { runSession } = await import('../run/session.js');
      ending = await runSession(
        {
          file,
          seen,
          ...settings,
          once: flags.once === true,
          watch: flags.watch === true,
          mode,
          colour,
          ...(notifier && { notifier: notifier.listener }),
        },
        io,
      );
    }
  } catch (error) {
    if (!(error instanceof SupervisorError)) throw error;
    ending = {
      outcome: failedOutcome(error, file),
      context: { file: path.resolve(file), run: '', steps: 0, task: '' },
    };
  }
  if (ending.bug === undefined) printOutcome(ending.outcome, mode, style, io);
  // The board's own list, when the board could not be read: the --notify ones still hear of it.
  if (heard) notifier ??= await openNotifier(path.resolve(file), {}, settings, io).catch(() => undefined);
  // A run that found the board locked never started: the run holding it tells its own end.
  if (heard && ending.outcome.kind !== 'locked')
    notifier?.end(ending.outcome, outcomeLine(ending.outcome), ending.context);
  const hook = ending.outcome.exitCode === 0 ? hooks.complete : hooks.halt;
  if (hook) {
    const { runHook } = await import('../hooks/run-hook.js');
    const warning = await runHook(hook, ending.outcome, ending.context, io.env);
    if (warning) writeIfOpen(io.stderr, `kanban-supervisor: warning: ${warning}\n`);
  }
  await notifier?.flush(); // at most notify/notifier.ts FLUSH_CAP_MS; never changes the exit code
  if (ending.bug !== undefined) throw ending.bug;
  return ending.outcome.exitCode;
}

// notify/ is loaded only when notifications go somewhere (start-up: bench/README.md).
async function openNotifier(
  file: string,
  board: BoardSettings,
  flags: SettingsFlags,
  io: RunIO,
): Promise<Notifier | undefined> {
  if ((board.notify === undefined || board.notify === null) && flags.notify === undefined) return undefined;
  const [{ notifySettings }, { runNotifier }] = await Promise.all([
    import('../board/settings.js'),
    import('./run-notify.js'),
  ]);
  const wanted = notifySettings(board, {});
  return runNotifier({
    file,
    board: wanted.notify,
    flags: flags.notify ?? [],
    waitThresholdMs: wanted.notifyWaitMs,
    env: io.env,
    stderr: io.stderr,
  });
}

// hooks/hook.js is loaded only when a hook is given, like dry-run.js for --dry-run.
async function parseHooks(
  flags: RunFlags,
  boardDir: string,
  env: NodeJS.ProcessEnv,
): Promise<{ complete?: Hook; halt?: Hook }> {
  if (flags['on-complete'] === undefined && flags['on-halt'] === undefined) return {};
  const { parseHook } = await import('../hooks/hook.js');
  return {
    ...(flags['on-complete'] !== undefined && {
      complete: parseHook('--on-complete', flags['on-complete'], boardDir, env),
    }),
    ...(flags['on-halt'] !== undefined && { halt: parseHook('--on-halt', flags['on-halt'], boardDir, env) }),
  };
}
