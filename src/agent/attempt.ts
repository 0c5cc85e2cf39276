import { createWriteStream, type WriteStream } from 'node:fs';
import { once } from 'node:events';
import { execa } from 'execa';
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
  now?: () => number;
}

/** Runs one attempt of an agent; the loop receives this so tests can pass their own. */
export type RunAttempt = (invocation: Invocation, options: AttemptOptions) => Promise<AttemptResult>;

// Enough to hold any sensible reply (and a Claude result envelope) after megabytes of chatter.
const STDOUT_TAIL_BYTES = 4 * 1024 * 1024;
const STDERR_TAIL_BYTES = 16 * 1024;

/**
 * Run one attempt of an agent in its own process group (SPEC §5). stdout and stderr
 * stream to the attempt's files; only a bounded tail stays in memory. On timeout,
 * idle timeout or interrupt the whole group gets SIGTERM, then SIGKILL after the
 * grace period, so no grandchild outlives the attempt.
 */
export const runAttempt: RunAttempt = async (invocation, options) => {
  const now = options.now ?? (() => performance.now());
  const started = now();
  const out = createWriteStream(options.outFile);
  const err = createWriteStream(options.errFile);
  const stdoutTail = new Tail(STDOUT_TAIL_BYTES);
  const stderrTail = new Tail(STDERR_TAIL_BYTES);

  const subprocess = execa(invocation.file, [...invocation.args], {
    cwd: invocation.cwd,
    env: invocation.env,
    extendEnv: false,
    // Its own process group, so one kill reaches every grandchild.
    detached: true,
    stdin: invocation.stdin ? 'pipe' : 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
    buffer: false,
    reject: false,
    encoding: 'buffer',
    stripFinalNewline: false,
  });
  const pid = subprocess.pid;

  let end: AttemptEnd = 'exited';
  let killedWith: AttemptResult['killedWith'] = null;
  let graceTimer: NodeJS.Timeout | undefined;
  const killGroup = (signal: 'SIGTERM' | 'SIGKILL') => {
    if (pid === undefined) return;
    try {
      process.kill(-pid, signal);
      killedWith = signal;
    } catch {
      // ESRCH: the group is already gone.
    }
  };
  const stop = (why: AttemptEnd) => {
    if (end !== 'exited') return;
    end = why;
    killGroup('SIGTERM');
    graceTimer = setTimeout(() => killGroup('SIGKILL'), options.killGraceMs);
    graceTimer.unref();
  };

  let lastOutput = now();
  const watch = (stream: NodeJS.ReadableStream | null, tail: Tail, file: WriteStream) => {
    if (!stream) return;
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

  const wall = setTimeout(() => stop('timeout'), invocation.timeoutMs);
  const idle =
    invocation.idleTimeoutMs === null
      ? undefined
      : setInterval(
          () => {
            if (now() - lastOutput >= (invocation.idleTimeoutMs as number)) stop('idle-timeout');
          },
          Math.max(50, Math.min(1000, invocation.idleTimeoutMs / 4)),
        );
  const onInterrupt = () => stop('interrupted');
  const onForce = () => {
    end = end === 'exited' ? 'interrupted' : end;
    killGroup('SIGKILL');
  };
  if (options.interrupt?.aborted) onInterrupt();
  options.interrupt?.addEventListener('abort', onInterrupt, { once: true });
  options.forceStop?.addEventListener('abort', onForce, { once: true });

  let exitCode: number | null = null;
  let signal: string | null = null;
  let spawnError: string | undefined;
  try {
    if (pid === undefined) {
      const result = await subprocess;
      end = 'spawn-failed';
      spawnError = result.message;
    } else {
      [exitCode, signal] = (await once(subprocess, 'exit')) as [number | null, string | null];
      // The leader is gone; anything it left in its group is an orphan. Stop it the same way,
      // and do not wait on pipes a surviving grandchild might hold open forever.
      killGroup('SIGTERM');
      const streamsClosed = subprocess.then(() => undefined);
      const grace = new Promise<void>((resolve) => setTimeout(resolve, options.killGraceMs).unref());
      if ((await Promise.race([streamsClosed.then(() => 'closed'), grace.then(() => 'grace')])) === 'grace') {
        killGroup('SIGKILL');
        await Promise.race([streamsClosed, new Promise((resolve) => setTimeout(resolve, 1000).unref())]);
        subprocess.stdout?.destroy();
        subprocess.stderr?.destroy();
      }
    }
  } finally {
    clearTimeout(wall);
    clearTimeout(graceTimer);
    if (idle) clearInterval(idle);
    options.interrupt?.removeEventListener('abort', onInterrupt);
    options.forceStop?.removeEventListener('abort', onForce);
  }
  await Promise.all([closeStream(out), closeStream(err)]);
  return {
    end,
    exitCode,
    signal,
    killedWith,
    stdout: stdoutTail.text(),
    stdoutTruncated: stdoutTail.truncated,
    stdoutBytes: stdoutTail.total,
    stderrTail: stderrTail.text(),
    durationMs: Math.round(now() - started),
    pid,
    ...(spawnError !== undefined && { spawnError }),
  };
};

async function closeStream(stream: WriteStream): Promise<void> {
  if (stream.closed) return;
  if (!stream.writableEnded) stream.end();
  await once(stream, 'close').catch(() => undefined);
}
