import { spawn } from 'node:child_process';
import path from 'node:path';
import { bound } from '../agent/bounded.js';
import type { GroupKiller } from '../agent/group-kill.js';
import { safeEnv } from '../agent/safe-env.js';
import { agentTag, TAG_VARIABLE } from '../agent/tag.js';
import type { Outcome } from '../progress/outcome.js';
import { hookEnv, type Hook, type HookContext } from './hook.js';

/** How a hook is bounded; the defaults are the CLI's, tests pass shorter ones. */
export interface HookLimits {
  /** How long a hook may run before its group is stopped (default 60 s; 2 s after a signal or the time limit). */
  timeoutMs?: number;
  /** SIGTERM to SIGKILL (default 2 s; 1 s after a signal or the time limit). */
  graceMs?: number;
  /** Where SIGINT, SIGTERM and SIGHUP come from (default: process). */
  signals?: NodeJS.EventEmitter;
}

// A notification that hangs must not keep the supervisor from exiting; after a signal or the time
// limit stopped the run, the stop must end well inside `docker stop`'s 10 s (and the scheduler's deadline).
const HOOK_TIMEOUT_MS = 60_000;
const HOOK_GRACE_MS = 2_000;
const STOPPED_TIMEOUT_MS = 2_000;
const STOPPED_GRACE_MS = 1_000;
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * Run a hook as an agent is run: in a process group of its own, tagged so that whatever it
 * starts is found and stopped (agent/sweep.ts), stopped at its timeout and on a signal to the
 * supervisor (a second signal kills it at once), its environment made safe to pass. Its output
 * goes to the supervisor's stderr (so `--json` stdout stays clean). Resolves with a warning when
 * it fails or was stopped; never rejects, since a notification never changes the run's exit code.
 */
export async function runHook(
  hook: Hook,
  outcome: Outcome,
  context: HookContext,
  base: NodeJS.ProcessEnv,
  limits: HookLimits = {},
): Promise<string | null> {
  const [argv0, ...args] = hook.argv;
  const what = `${hook.flag} command (${hook.argv.join(' ')})`;
  const stopped = outcome.kind === 'interrupted' || outcome.kind === 'time_limit';
  const timeoutMs = limits.timeoutMs ?? (stopped ? STOPPED_TIMEOUT_MS : HOOK_TIMEOUT_MS);
  const graceMs = limits.graceMs ?? (stopped ? STOPPED_GRACE_MS : HOOK_GRACE_MS);
  const signals = limits.signals ?? process;
  const tag = agentTag(
    { board: context.file, run: `${context.run}|${hook.flag}|${process.pid}`, step: 0, role: 'hook' },
    base[TAG_VARIABLE],
  );
  const env = safeEnv({ ...hookEnv(outcome, context, base), [TAG_VARIABLE]: tag });
  // Listening before the spawn: a signal while the hook starts would otherwise kill the
  // supervisor and leave the hook running, holding its stderr. It stops the hook once it runs.
  const state: { stoppedBy: string | null; killer?: GroupKiller } = { stoppedBy: null };
  // A signal while a hook runs stops the hook, not the supervisor: the run's outcome stands.
  const onSignal = (signal: NodeJS.Signals) => {
    if (state.stoppedBy !== null) return state.killer?.kill();
    state.stoppedBy = `was stopped by ${signal}`;
    state.killer?.terminate();
  };
  for (const signal of SIGNALS) signals.on(signal, onSignal);
  try {
    let child;
    try {
      child = spawn(hook.program, args, {
        argv0,
        cwd: path.dirname(context.file),
        env,
        stdio: ['ignore', 2, 2],
        detached: true,
      });
    } catch (error) {
      return `${what} could not start: ${(error as Error).message}.`;
    }
    const pid = child.pid;
    const started = await new Promise<Error | null>((resolve) => {
      child.once('spawn', () => resolve(null));
      child.once('error', resolve);
    });
    if (started || pid === undefined) return `${what} could not start: ${started?.message ?? 'no process'}.`;
    // Whatever the hook leaves running (holding the supervisor's stderr, say) is stopped with it.
    const hookRun = bound(child, pid, { timeoutMs, graceMs, tag }, () => {
      state.stoppedBy ??= `was stopped after ${timeoutMs / 1000}s`;
    });
    state.killer = hookRun.killer;
    if (state.stoppedBy !== null) hookRun.killer.terminate(); // the signal came while it started
    const { code, signal } = await hookRun.ended;
    if (state.stoppedBy !== null) return `${what} ${state.stoppedBy}, with everything it started.`;
    return code === 0 ? null : `${what} failed (${signal ? `killed by ${signal}` : `exit ${String(code)}`}).`;
  } finally {
    for (const signal of SIGNALS) signals.off(signal, onSignal);
  }
}
