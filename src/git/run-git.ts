import { execa } from 'execa';
import { bound } from '../agent/bounded.js';
import { onStop, type StopSignals } from '../agent/interrupt.js';
import { safeEnv } from '../agent/safe-env.js';
import { TAG_VARIABLE } from '../agent/tag.js';

/** How git is run: where, with what environment (see gitEnv), and how it is bounded. */
export interface GitBounds {
  /** The folder git runs in. */
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
  /** How long one git command may run, its hooks included, before its group is stopped. */
  timeoutMs: number;
  /** SIGTERM to SIGKILL. */
  graceMs: number;
  /** The tag its processes carry, so that whatever a hook leaves running is found and stopped (agent/tag.ts). */
  tag: string;
  /** A run's stop: git is stopped with it (a first request gracefully, a second at once). */
  stop?: StopSignals;
}

/**
 * A git command as the run starts it: the one program found at its start,
 * and the options that keep it inert (inert.ts).
 */
export interface GitCall extends GitBounds {
  /** git's absolute path. */
  program: string;
  options: readonly string[];
}

/** How one git command ended; `stdout` is a byte string (latin1), `stderr` text. */
export interface GitResult {
  code: number | null;
  stdout: string;
  stderr: string;
  /** It ran out of time (or the run was stopped) and was stopped, with everything it started. */
  stopped: 'timeout' | 'interrupted' | null;
  /** git could not be started at all (not installed: ENOENT). */
  startError?: string;
}

/**
 * Run `git <args>` as the project runs every child: no shell, its own process group, tagged so a
 * hook's leftovers are swept, stopped at its timeout and on the run's stop — a hung hook cannot
 * hang the run. Never rejects: the caller decides what a failure means.
 */
export async function runGit(args: readonly string[], call: GitCall, input?: Buffer): Promise<GitResult> {
  const subprocess = execa(call.program, [...call.options, ...args], {
    cwd: call.cwd,
    env: safeEnv({ ...call.env, [TAG_VARIABLE]: call.tag }),
    extendEnv: false,
    detached: true, // its own group: one kill reaches every hook and what it started
    cleanup: false, // stopped below, as an agent is: execa's own kill reaches the leader only
    ...(input ? { input } : { stdin: 'ignore' as const }),
    reject: false,
    encoding: 'buffer',
    stripFinalNewline: false,
  });
  const pid = subprocess.pid;
  if (pid === undefined) {
    const failed = await subprocess;
    return {
      code: null,
      stdout: '',
      stderr: '',
      stopped: null,
      startError: String(failed.code ?? failed.originalMessage ?? 'unknown error'),
    };
  }
  let stopped: GitResult['stopped'] = null;
  // A hook's background process may hold git's pipes: it is stopped, not waited for.
  const git = bound(subprocess.nodeChildProcess, pid, call, () => {
    stopped ??= 'timeout';
  });
  const unstop = call.stop
    ? onStop(
        call.stop,
        () => {
          stopped ??= 'interrupted';
          git.killer.terminate();
        },
        () => git.killer.kill(),
      )
    : () => {};
  try {
    await git.ended;
    const result = await subprocess;
    return {
      code: result.exitCode ?? null,
      stdout: Buffer.from(result.stdout).toString('latin1'),
      stderr: Buffer.from(result.stderr).toString('utf8'),
      stopped,
    };
  } finally {
    unstop();
  }
}
