import path from 'node:path';
import { runAttempt as realRunAttempt, type RunAttempt } from '../agent/attempt.js';
import { readBoard } from '../board/board.js';
import { formatDuration, requireDuration } from '../duration.js';
import { InputError, InterruptedError, type SupervisorError } from '../errors.js';
import { EventLog, type EventListener } from '../log/events.js';
import { acquireBoardLock } from '../lock.js';
import { superviseBoard, type LoopResult } from '../loop.js';
import { createReporter } from '../reporter/reporter.js';
import type { SettingsFlags } from '../settings.js';

/** Options of `kanban-supervisor run`. */
export interface RunOptions extends SettingsFlags {
  file: string;
  once?: boolean;
  listeners?: EventListener[];
  /** Replaceable for tests of the loop without real agents. */
  runAttempt?: RunAttempt;
  env?: NodeJS.ProcessEnv;
  /** Where signals come from (the process, by default). */
  signals?: NodeJS.EventEmitter;
}

/** Run a board to completion (or one step with --once); throws a SupervisorError on every other outcome. */
export async function run(options: RunOptions): Promise<LoopResult & { file: string; runId: string; elapsedMs: number }> {
  const started = performance.now();
  const file = path.resolve(options.file);
  readBoard(file); // bad input fails with exit 2 before anything is locked or written
  const interrupt = new AbortController();
  const force = new AbortController();
  const release = await acquireBoardLock(file, (lost) => interrupt.abort(lost));
  const signals = options.signals ?? process;
  const onSignal = (signal: NodeJS.Signals) => {
    // First signal: stop the agent's group gracefully. Second: kill it at once.
    if (interrupt.signal.aborted) force.abort();
    else interrupt.abort(new InterruptedError(`Interrupted by ${signal}: the running agent and its children were stopped. The board is unchanged; run again to resume at the current task.`, signal));
  };
  const handled = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
  for (const signal of handled) signals.on(signal, onSignal);
  try {
    const runId = `${new Date().toISOString().replace(/[:.]/g, '-')}-${process.pid}`;
    const stateDir = path.join(path.dirname(file), '.kanban-supervisor');
    const events = new EventLog(stateDir, runId, options.listeners ?? []);
    events.emit('run_started', { board: path.basename(file), pid: process.pid });
    const result = await superviseBoard(file, options, {
      runAttempt: options.runAttempt ?? realRunAttempt,
      events,
      runDir: path.join(stateDir, 'runs', runId),
      interrupt: interrupt.signal,
      forceStop: force.signal,
      clock: () => new Date(),
      env: options.env ?? process.env,
    }).catch((error: unknown) => {
      // Whatever was underway, an interrupt or a lost lock is what the person must hear about.
      throw interrupt.signal.aborted ? (interrupt.signal.reason as SupervisorError) : error;
    });
    return { ...result, file, runId, elapsedMs: performance.now() - started };
  } finally {
    for (const signal of handled) signals.off(signal, onSignal);
    await release();
  }
}

/** `kanban-supervisor run`: turn flags into options, show progress, print the outcome; returns the exit code. */
export async function runCommand(file: string, flags: Record<string, string | boolean | undefined>): Promise<number> {
  const mode = flags.json ? 'json' : flags.quiet ? 'quiet' : 'plain';
  const result = await run({
    file,
    ...(flags['max-retries'] !== undefined && { maxRetries: integerFlag('--max-retries', flags['max-retries'], 0) }),
    ...(flags['max-steps'] !== undefined && { maxSteps: integerFlag('--max-steps', flags['max-steps'], 1) }),
    ...(flags.timeout !== undefined && { timeoutMs: durationFlag('--timeout', flags.timeout) }),
    once: flags.once === true,
    listeners: [createReporter(mode, process.stdout)],
  });
  const what = result.reason === 'once' ? `Ran one step (--once) in ${formatDuration(result.elapsedMs)}. Run again to continue.` : `Done: the board has no next task (${result.steps} step(s), ${formatDuration(result.elapsedMs)}).`;
  (mode === 'json' ? process.stderr : process.stdout).write(`${what}\n`);
  return 0;
}

function integerFlag(name: string, value: string | boolean, min: number): number {
  const n = Number(value);
  if (typeof value !== 'string' || !Number.isInteger(n) || n < min) throw new InputError(`${name} must be a whole number >= ${min} (got ${JSON.stringify(value)}).`);
  return n;
}

function durationFlag(name: string, value: string | boolean): number {
  return requireDuration(value, name);
}
