import path from 'node:path';
import type { RunAttempt } from '../agent/attempt.js';
import { stopLeftoverAgent } from '../agent/group.js';
import { readBoard } from '../board/board.js';
import { InterruptedError, type SupervisorError } from '../errors.js';
import { EventLog, type EventListener } from '../log/events.js';
import { acquireBoardLock } from '../lock/lock.js';
import { superviseBoard, type LoopResult } from '../loop.js';
import { resolveSettings, type SettingsFlags } from '../settings.js';

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
  /** Called with the running agent's latest non-blank output line (the live status line shows it). */
  onLine?: (line: string) => void;
}

// Loaded at the first attempt: a run on a finished board starts no agent. (runAttempt checks
// for an interrupt first thing, so one that comes while this loads is not missed.)
let loadedRunAttempt: RunAttempt | undefined;
const realRunAttempt: RunAttempt = async (invocation, options) => {
  loadedRunAttempt ??= (await import('../agent/attempt.js')).runAttempt;
  return loadedRunAttempt(invocation, options);
};

/** Run a board to completion (or one step with --once); throws a SupervisorError on every other outcome. */
export async function run(options: RunOptions): Promise<LoopResult & { file: string; runId: string; elapsedMs: number }> {
  const started = performance.now();
  const file = path.resolve(options.file);
  const board = readBoard(file); // bad input fails with exit 2 before anything is locked or written
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
  let events: EventLog | undefined;
  try {
    const runId = `${new Date().toISOString().replace(/[:.]/g, '-')}-${process.pid}`;
    const stateDir = path.join(path.dirname(file), '.kanban-supervisor');
    // An agent left running by a supervisor that was killed would work on beside the re-run.
    const agentFile = path.join(stateDir, 'agent.json');
    const leftover = await stopLeftoverAgent(agentFile, resolveSettings(board.settings, options).killGraceMs);
    events = new EventLog(stateDir, runId, options.listeners ?? []);
    events.emit('run_started', { board: path.basename(file), pid: process.pid, ...(leftover && { stoppedLeftoverAgent: leftover }) });
    const result = await superviseBoard(file, options, {
      runAttempt: options.runAttempt ?? realRunAttempt,
      events,
      runDir: path.join(stateDir, 'runs', runId),
      interrupt: interrupt.signal,
      forceStop: force.signal,
      agentFile,
      clock: () => new Date(),
      env: options.env ?? process.env,
      ...(options.onLine && { onLine: options.onLine }),
    }).catch((error: unknown) => {
      // Whatever was underway, an interrupt or a lost lock is what the person must hear about.
      throw interrupt.signal.aborted ? (interrupt.signal.reason as SupervisorError) : error;
    });
    return { ...result, file, runId, elapsedMs: performance.now() - started };
  } finally {
    events?.close();
    for (const signal of handled) signals.off(signal, onSignal);
    await release();
  }
}
