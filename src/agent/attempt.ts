import { execa } from 'execa';
import type { AttemptOutput } from '../log/output-store.js';
import type { Failure, Stream } from '../agents/adapter.js';
import { activityOf, agentFor, failureInLine } from '../agents/index.js';
import type { Usage } from '../reply/usage.js';
import type { PermissionDecision } from '../acp/policy.js';
import { acpTalk, type AcpTalk } from './acp-talk.js';
import { readProcInfo } from '../util/proc-stat.js';
import { cleanLine } from '../util/clean-text.js';
import { startProblem } from './command.js';
import { groupKiller, type GroupKiller } from './group-kill.js';
import { onStop, type StopSignals } from './interrupt.js';
import { spawnCommand, type Invocation } from './invocation.js';
import { openCopies } from './copy-fds.js';
import { stopLeftovers } from './leftovers.js';
import { collectOutput, type LineWatch } from './collect-output.js';
import { recordAgent } from './record.js';
import { safeEnv } from './safe-env.js';
import { idleTimeout, wallTimeout } from './timeouts.js';

/**
 * How an attempt ended. Only `exited` can carry a reply; `gave-up`:
 * its output showed a failure it would not recover from.
 */
export type AttemptEnd = 'exited' | 'timeout' | 'idle-timeout' | 'gave-up' | 'interrupted' | 'spawn-failed';

/** What one run of an agent produced. */
export interface AttemptResult {
  end: AttemptEnd;
  exitCode: number | null;
  /** The signal that ended the agent, if any. */
  signal: string | null;
  /** The strongest signal the supervisor sent the agent's process group, if any. */
  killedWith: 'SIGTERM' | 'SIGKILL' | null;
  /** The end of stdout (bounded); the whole of it when `stdoutTruncated` is false. */
  stdout: string;
  stdoutTruncated: boolean;
  stdoutBytes: number;
  stderrTail: string;
  durationMs: number;
  spawnError?: string;
  /** What the agent's output showed when it was stopped early (`gave-up`), or an ACP agent's error said. */
  failure?: Failure;
  /** What the agent reported spending where it says so outside stdout (an ACP agent's `usage_update`). */
  usage?: Usage;
  /** `protocol: acp`: how the prompt turn ended and how each permission request was answered. */
  acp?: { stopReason?: string; error?: string; permissions: PermissionDecision[] };
}

/**
 * What an attempt takes from its run: how it is told to stop,
 * who shows its lines, and the board folder (for its record).
 */
export interface AttemptContext {
  stop: StopSignals;
  /** Called with the agent's latest non-blank output line (the live status line shows it). */
  onLine?: (line: string) => void;
  /** The board folder. */
  dir: string;
  /** The run's output store: a run whose output is kept apart (`try`) keeps its agent's record apart too. */
  output?: { readonly apart: boolean };
}

/** Runs one attempt of an agent; the real one spawns a process, tests of the loop pass their own. */
export type RunAttempt = (invocation: Invocation, output: AttemptOutput, ctx: AttemptContext) => Promise<AttemptResult>;

/**
 * Run one attempt of an agent in a process group of its own (SPEC §5; the lifecycle is in
 * README.md here). Its policies — wall timeout, idle timeout, interrupt, a failure its output
 * shows — each end it through the group kill: SIGTERM, then SIGKILL after the grace period. It
 * is judged when the agent exits: the timers stop, the output left in the pipes is read, and
 * everything it started is stopped, not waited for. A command the system refuses for good
 * throws an InputError.
 */
export const runAttempt: RunAttempt = async (invocation, output, ctx) => {
  const started = performance.now();
  const record = recordAgent(
    ctx.dir,
    { tag: invocation.tag, role: invocation.role, task: invocation.task },
    ctx.output?.apart === true ? 'try' : 'run',
  );
  const spawned = spawnCommand(invocation);
  // What a fence copies (`copy:`) bubblewrap reads from file descriptors 4, 5, …, opened afresh for each attempt.
  const copies = openCopies(invocation.wrap?.files ?? []);
  // execa passes a file descriptor number through as child_process does; its types list none past stderr.
  const extra = copies.fds as unknown as Array<'pipe'>;
  // An ACP agent's stdin and stdout carry the protocol (src/acp/, loaded only for such a role).
  const talk: AcpTalk | undefined = invocation.acp ? await acpTalk({ ...invocation, acp: invocation.acp }) : undefined;
  const subprocess = execa(spawned.file, spawned.args, {
    cwd: invocation.cwd,
    env: safeEnv(invocation.env),
    extendEnv: false,
    detached: true, // its own process group, so one kill reaches every grandchild
    // Stopped by the policies below, never left to an exit handler; not by execa's timeout,
    // cancelSignal or forceKillAfterDelay either: they signal the leader only, not its group.
    cleanup: false,
    // stdin: an ACP agent's carries the protocol (a pipe); else the bytes written whole and closed, or none.
    // A fenced agent's bubblewrap reads its seccomp filter from descriptor 3 (SECCOMP_FD) and what its
    // fence copies from 4, 5, … (FIRST_COPY_FD); execa passes a descriptor number through as child_process does.
    stdio: [
      talk ? ('pipe' as const) : (invocation.stdin ?? 'ignore'),
      'pipe',
      'pipe',
      ...(spawned.seccomp || extra.length ? [spawned.seccomp ?? ('ignore' as const), ...extra] : []),
    ],
    ...(spawned.user && { uid: spawned.user.uid, gid: spawned.user.gid }),
    buffer: false,
    reject: false,
    encoding: 'buffer',
  });
  // The child holds its own copies of the descriptors once spawned (execa spawns before it returns).
  copies.close();
  const pid = subprocess.pid;
  let end: AttemptEnd = 'exited';
  let failure: Failure | undefined;
  // The group exists once the agent does; a policy may fire before (never in practice).
  const group: { killer?: GroupKiller } = {};
  // What an ACP agent said before it was told to cancel: its words after (an aborted request's
  // "fetch failed") are about the cancel, not a failure to classify.
  let stderrAtStop: string | undefined;
  const stop = (why: AttemptEnd) => {
    if (end === 'exited') end = why;
    if (talk) stderrAtStop ??= collected.stderr.text();
    // An ACP agent is first asked to end its turn (session/cancel), then its group is stopped.
    if (talk) talk.stop(() => group.killer?.terminate());
    else group.killer?.terminate();
  };
  const collected = collectOutput(
    subprocess,
    output,
    watchLines(invocation, talk ? undefined : ctx.onLine, (seen) => {
      failure ??= seen;
      stop('gave-up');
    }),
  );
  const result = (
    fields: Pick<AttemptResult, 'end' | 'exitCode' | 'signal' | 'killedWith'> & { spawnError?: string },
  ): AttemptResult => ({
    ...fields,
    stdout: collected.stdout.text(),
    stdoutTruncated: collected.stdout.truncated,
    stdoutBytes: collected.stdout.total,
    stderrTail: collected.stderr.text(),
    durationMs: Math.round(performance.now() - started),
    ...(failure && { failure }),
    // An ACP agent's reply is its message text, not the protocol on its stdout (kept in the log file).
    ...talk?.result(stderrAtStop ?? collected.stderr.text(), failure),
  });
  if (pid === undefined) {
    record.remove();
    const failed = await subprocess;
    const problem = startProblem(invocation, String(failed.code ?? ''));
    if (problem) throw problem;
    return result({
      end: 'spawn-failed',
      exitCode: null,
      signal: null,
      killedWith: null,
      spawnError: failed.originalMessage ?? 'unknown error',
    });
  }
  record.started(pid);
  talk?.start(subprocess, ctx.onLine, () => group.killer?.terminate());
  const since = readProcInfo(pid)?.startTicks;
  const killer = (group.killer = groupKiller(pid, invocation.killGraceMs));
  const policies = [
    wallTimeout(invocation.timeoutMs, () => stop('timeout')),
    idleTimeout(
      invocation.idleTimeoutMs,
      () => performance.now() - collected.lastOutputAt(),
      () => stop('idle-timeout'),
    ),
    onStop(
      ctx.stop,
      () => stop('interrupted'),
      () => {
        stop('interrupted');
        killer.kill();
      },
    ),
  ];
  const [exitCode, signal] = await new Promise<[number | null, string | null]>((resolve) =>
    subprocess.nodeChildProcess.once('exit', (code, sig) => resolve([code, sig])),
  );
  for (const cleanup of policies) cleanup();
  talk?.exited();
  killer.dispose();
  // The leader is gone: whatever it left is stopped now, and the pipes are read to their end
  // (a leftover that still holds one is not waited for once it has been stopped).
  const leftovers = await stopLeftovers(pid, invocation.tag, invocation.killGraceMs, {
    force: ctx.stop.force.aborted,
    ...(since !== undefined && { since }),
  });
  await Promise.race([collected.closed, new Promise((resolve) => setTimeout(resolve, 200))]);
  collected.destroy();
  await talk?.settled();
  await subprocess;
  record.remove();
  output.out.close();
  output.err.close();
  return result({
    end,
    exitCode,
    signal,
    killedWith: leftovers === 'SIGKILL' ? 'SIGKILL' : (killer.killedWith ?? leftovers),
  });
};

// The status line shows what the agent is doing (a streaming CLI's text or tool call, not raw
// JSON). A line that shows a failure the CLI would retry by itself until its timeout (the role's
// `failures:` on stderr, its adapter's own knowledge) stops the attempt at once.
function watchLines(
  invocation: Invocation,
  onLine: ((line: string) => void) | undefined,
  onFailure: (failure: Failure) => void,
): LineWatch {
  const command = [invocation.file, ...invocation.args];
  const agent = agentFor(command);
  const watch: LineWatch = {};
  if (onLine) {
    watch.latest = (line, stream) => {
      const shown = stream === 'stdout' ? activityOf(line, agent, invocation.cwd) : line;
      const clean = shown === undefined ? '' : cleanLine(shown);
      if (clean) onLine(clean);
    };
  }
  // The zone a reset time is worded in (resolved once, if needed).
  let timeZone: string | undefined;
  let noLogin: string | undefined;
  const check = (stream: Stream) => (line: string) => {
    if (timeZone === undefined) {
      timeZone = invocation.env.TZ || Intl.DateTimeFormat().resolvedOptions().timeZone;
      noLogin = agent.missingLogin?.(invocation.env);
    }
    const failure = failureInLine(line, stream, {
      command,
      patterns: invocation.failures,
      now: new Date(),
      timeZone,
      noLogin,
    });
    if (failure) onFailure(failure);
  };
  watch.lines = {
    ...((agent.failureInLine || invocation.failures) && { stderr: check('stderr') }),
    ...(agent.failureInLine && { stdout: check('stdout') }),
  };
  return watch;
}
