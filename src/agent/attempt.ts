import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import { once } from 'node:events';
import path from 'node:path';
import { startProblem } from './command.js';
import { forgetAgent, recordAgent, signalGroup } from './group.js';
import type { Invocation } from './invocation.js';
import { Tail, lastLine } from './tail.js';

/** How an attempt ended. Only `exited` can carry a reply; the others are invalid output or an interrupt. */
export type AttemptEnd = 'exited' | 'timeout' | 'idle-timeout' | 'interrupted' | 'spawn-failed';

/** What one run of an agent produced. */
export interface AttemptResult {
  end: AttemptEnd;
  exitCode: number | null;
  /** The signal that ended the agent, if any. */
  signal: string | null;
  /** The last signal the supervisor sent the agent's process group, if any. */
  killedWith: 'SIGTERM' | 'SIGKILL' | null;
  /** The end of stdout (bounded); the whole of it when `stdoutTruncated` is false. */
  stdout: string;
  stdoutTruncated: boolean;
  stdoutBytes: number;
  stderrTail: string;
  durationMs: number;
  pid: number | undefined;
  spawnError?: string;
}

/** Where an attempt writes its output, and how it is told to stop. */
export interface AttemptOptions {
  outFile: string;
  errFile: string;
  killGraceMs: number;
  /** Aborted on the first Ctrl-C / SIGTERM: the group gets SIGTERM, then SIGKILL after the grace period. */
  interrupt?: AbortSignal;
  /** Aborted on a second Ctrl-C: the group gets SIGKILL at once. */
  forceStop?: AbortSignal;
  /** Called with the agent's latest non-blank output line. */
  onLine?: (line: string) => void;
  /** Where to record the running agent's group, so a run after a crash can stop it (see group.ts). */
  agentFile?: string;
  /** What the agent record names as the task. */
  task?: string;
  now?: () => number;
}

/** Runs one attempt of an agent; the loop receives this so tests can pass their own. */
export type RunAttempt = (invocation: Invocation, options: AttemptOptions) => Promise<AttemptResult>;

// Enough to hold any sensible reply (and a Claude result envelope) after megabytes of chatter.
const STDOUT_TAIL_BYTES = 4 * 1024 * 1024;
const STDERR_TAIL_BYTES = 16 * 1024;
// Node fires a longer timer after 1 ms instead; 24.8 days is as good as forever for an agent.
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Run one attempt of an agent in its own process group (SPEC §5). stdout and stderr
 * stream to the attempt's files; only a bounded tail stays in memory. On timeout,
 * idle timeout or interrupt the whole group gets SIGTERM, then SIGKILL after the
 * grace period, so no grandchild outlives the attempt. A command the system refuses
 * to start for good (missing #! interpreter, NUL byte, E2BIG) throws an InputError.
 */
export const runAttempt: RunAttempt = async (invocation, options) => {
  const now = options.now ?? (() => performance.now());
  const started = now();
  const stdoutTail = new Tail(STDOUT_TAIL_BYTES);
  const stderrTail = new Tail(STDERR_TAIL_BYTES);
  const result = (fields: Pick<AttemptResult, 'end' | 'exitCode' | 'signal' | 'killedWith' | 'pid'> & { spawnError?: string }): AttemptResult => ({
    ...fields,
    stdout: stdoutTail.text(),
    stdoutTruncated: stdoutTail.truncated,
    stdoutBytes: stdoutTail.total,
    stderrTail: stderrTail.text(),
    durationMs: Math.round(now() - started),
  });
  // Never start an agent only to stop it: an interrupt between attempts ends the run here.
  if (options.interrupt?.aborted) return result({ end: 'interrupted', exitCode: null, signal: null, killedWith: null, pid: undefined });

  mkdirSync(path.dirname(options.outFile), { recursive: true }); // a person may have cleaned the state folder mid-run
  const out = logStream(options.outFile);
  const err = logStream(options.errFile);
  const failedStart = async (error: NodeJS.ErrnoException): Promise<AttemptResult> => {
    await Promise.all([closeStream(out), closeStream(err)]);
    const problem = startProblem(invocation, error.code ?? 'ERR_INVALID_ARG_VALUE');
    if (problem) throw problem;
    if (error.syscall === undefined) throw error; // not the system refusing the command: a bug
    return result({ end: 'spawn-failed', exitCode: null, signal: null, killedWith: null, pid: undefined, spawnError: error.message.split('\n')[0] ?? 'unknown error' });
  };
  // node:child_process itself, not a wrapper: a step spawns two agents, and every
  // millisecond spent around a spawn is the supervisor's overhead.
  let subprocess: ChildProcess;
  try {
    subprocess = spawn(invocation.file, [...invocation.args], {
      cwd: invocation.cwd,
      env: invocation.env,
      // Its own process group, so one kill reaches every grandchild.
      detached: true,
      stdio: [invocation.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'],
    });
  } catch (error) {
    // Some refusals (E2BIG, ENOEXEC, a NUL byte) are thrown at once, others come as an 'error' event.
    return failedStart(error as NodeJS.ErrnoException);
  }
  const pid = subprocess.pid;
  if (pid === undefined) return failedStart((await once(subprocess, 'error'))[0] as NodeJS.ErrnoException);
  // Exit, then every pipe closed; listened to now, as it may follow 'exit' in the same tick.
  const streamsClosed = new Promise<'closed'>((resolve) => subprocess.once('close', () => resolve('closed')));
  // Nothing here kills or messages the child through Node, the only other sources of 'error'.
  subprocess.on('error', () => {});
  const recorded = options.agentFile ? recordAgent(options.agentFile, { pid, role: invocation.role, task: options.task ?? '' }) : undefined;

  let end: AttemptEnd = 'exited';
  let killedWith: AttemptResult['killedWith'] = null;
  let graceTimer: NodeJS.Timeout | undefined;
  const killGroup = (signal: 'SIGTERM' | 'SIGKILL') => {
    // The cleanup SIGTERM after a SIGKILL still reaches unreaped zombies; report the SIGKILL.
    if (signalGroup(pid, signal) && killedWith !== 'SIGKILL') killedWith = signal;
  };
  const stop = (why: AttemptEnd) => {
    if (end !== 'exited') return;
    end = why;
    killGroup('SIGTERM');
    graceTimer = setTimeout(() => killGroup('SIGKILL'), Math.min(options.killGraceMs, MAX_TIMER_MS));
    graceTimer.unref();
  };

  let lastOutput = now();
  const watch = (stream: NodeJS.ReadableStream | null, tail: Tail, file: WriteStream) => {
    if (!stream) return;
    stream.on('error', () => {}); // a failed read of the pipe ends the output; 'close' still comes
    stream.on('data', (chunk: Buffer) => {
      tail.push(chunk);
      lastOutput = now();
      if (options.onLine) {
        const line = lastLine(chunk);
        if (line) options.onLine(line);
      }
    });
    stream.pipe(file);
  };
  watch(subprocess.stdout, stdoutTail, out);
  watch(subprocess.stderr, stderrTail, err);

  if (subprocess.stdin) {
    // An agent may exit or close stdin without reading it: EPIPE is not an error here.
    subprocess.stdin.on('error', () => {});
    subprocess.stdin.end(invocation.stdin);
  }

  const wall = setTimeout(() => stop('timeout'), Math.min(invocation.timeoutMs, MAX_TIMER_MS));
  const idleMs = invocation.idleTimeoutMs;
  const idle =
    idleMs === null
      ? undefined
      : setInterval(
          () => {
            if (now() - lastOutput >= idleMs) stop('idle-timeout');
          },
          Math.max(50, Math.min(1000, idleMs / 4)),
        );
  const onInterrupt = () => stop('interrupted');
  const onForce = () => {
    end = end === 'exited' ? 'interrupted' : end;
    killGroup('SIGKILL');
  };
  options.interrupt?.addEventListener('abort', onInterrupt, { once: true });
  options.forceStop?.addEventListener('abort', onForce, { once: true });

  let exitCode: number | null = null;
  let signal: string | null = null;
  try {
    [exitCode, signal] = await new Promise<[number | null, string | null]>((resolve) => subprocess.once('exit', (code, sig) => resolve([code, sig])));
    // The leader is gone; anything it left in its group is an orphan. Stop it the same way,
    // and do not wait on pipes a surviving grandchild might hold open forever.
    killGroup('SIGTERM');
    if ((await Promise.race([streamsClosed, delay(options.killGraceMs, 'grace' as const)])) === 'grace') {
      killGroup('SIGKILL');
      await Promise.race([streamsClosed, delay(1000, 'given up' as const)]);
      subprocess.stdout?.destroy();
      subprocess.stderr?.destroy();
    }
  } finally {
    clearTimeout(wall);
    clearTimeout(graceTimer);
    if (idle) clearInterval(idle);
    options.interrupt?.removeEventListener('abort', onInterrupt);
    options.forceStop?.removeEventListener('abort', onForce);
    if (options.agentFile) {
      await recorded; // removed only once written, or a late write would leave it behind
      forgetAgent(options.agentFile);
    }
  }
  await Promise.all([closeStream(out), closeStream(err)]);
  return result({ end, exitCode, signal, killedWith, pid });
};

// A log file that cannot be written (disk full, folder removed) loses the copy on disk,
// never the attempt: the tail in memory still holds the reply.
function logStream(file: string): WriteStream {
  const stream = createWriteStream(file);
  stream.on('error', () => {});
  return stream;
}

function delay<T>(ms: number, value: T): Promise<T> {
  return new Promise((resolve) => setTimeout(resolve, Math.min(ms, MAX_TIMER_MS), value).unref());
}

async function closeStream(stream: WriteStream): Promise<void> {
  if (stream.closed || stream.destroyed) return;
  if (!stream.writableEnded) stream.end();
  await once(stream, 'close').catch(() => undefined);
}
