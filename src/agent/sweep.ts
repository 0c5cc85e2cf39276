import { InternalError } from '../errors.js';
import { scratch } from '../util/proc-stat.js';
import { findTagged, selfAndAncestors, stillTagged, type TaggedProcess } from './proc-scan.js';

/**
 * Stopping every process an agent run started, found by its tag (tag.ts), even those that
 * left the process group or the session: SIGTERM to all, then SIGKILL after the grace,
 * rescanning as it waits so that children forked meanwhile are stopped too. Bounded in
 * time. Each signal goes only to a pid that is still the process found (same start time)
 * and still carries the tag, so a pid reused meanwhile is never signalled.
 *
 * Linux only (it reads /proc); elsewhere it does nothing and says so.
 */

/** Options of a sweep; the clock, the sleep and the kill are passed in where tests need them. */
export interface SweepOptions {
  /**
   * Start time of the agent in clock ticks since boot (/proc/<pid>/stat field 22, as
   * AgentRecord.startTicks): older processes cannot be its descendants and are not read
   * further. Without it every process's environment is read (the takeover after a crash).
   */
  since?: number;
  /** How long SIGTERM is given before SIGKILL (default 5 s, as kill_grace). */
  graceMs?: number;
  /** How long after the SIGKILLs to wait for the processes to go before reporting survivors (default 2 s). */
  killWaitMs?: number;
  /** Longest pause between two scans while waiting (default 100 ms; the first ones are shorter). */
  pollMs?: number;
  /** Default: process.platform. */
  platform?: NodeJS.Platform;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  kill?: (pid: number, signal: NodeJS.Signals) => void;
}

/** What a sweep did: pids that ended after SIGTERM, pids that needed SIGKILL, pids still running when it gave up. */
export type SweepResult =
  | { supported: false }
  | {
      supported: true;
      found: number[];
      terminated: number[];
      killed: number[];
      survivors: number[];
      elapsedMs: number;
    };

/** Stop every process carrying `tag` (or a tag nested under it); see the file's comment. */
export async function sweepTagged(tag: string, options: SweepOptions = {}): Promise<SweepResult> {
  if (tag === '' || tag.includes('\0'))
    throw new InternalError(
      `A sweep was asked for the tag ${JSON.stringify(tag)}, which would match no agent run. ` +
        `This is a bug: please report it.`,
    );
  if ((options.platform ?? process.platform) !== 'linux') return { supported: false };
  const now = options.now ?? (() => performance.now());
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const kill = options.kill ?? ((pid: number, signal: NodeJS.Signals) => process.kill(pid, signal));
  const skip = selfAndAncestors();
  const scan = () => findTagged(tag, { skip, ...(options.since !== undefined && { since: options.since }) });

  let live = scan();
  if (live === undefined) return { supported: false };
  const started = now();
  const killAt = started + (options.graceMs ?? 5_000);
  const giveUpAt = killAt + (options.killWaitMs ?? 2_000);
  const found = new Set<number>();
  const termed = new Set<number>();
  const killed = new Set<number>();
  const space = scratch();
  const send = (target: TaggedProcess, signal: NodeJS.Signals) => {
    if (!stillTagged(target, tag, space)) return; // gone, or its pid is someone else's now
    try {
      kill(target.pid, signal);
      // A stopped process (SIGSTOP, Ctrl-Z) acts on SIGTERM only once it runs again.
      if (signal === 'SIGTERM') kill(target.pid, 'SIGCONT');
    } catch {
      // ESRCH: gone just now; EPERM: not ours to signal, reported as a survivor
    }
  };

  for (let pause = 10; live.length > 0; pause = Math.min(pause * 2, options.pollMs ?? 100)) {
    const killing = now() >= killAt;
    for (const target of live) {
      found.add(target.pid);
      const sent = killing ? killed : termed;
      if (sent.has(target.pid)) continue;
      sent.add(target.pid);
      send(target, killing ? 'SIGKILL' : 'SIGTERM');
    }
    if (now() >= giveUpAt) break;
    // Wake for the SIGKILL on time rather than a whole pause late.
    await sleep(killing ? pause : Math.max(1, Math.min(pause, killAt - now())));
    live = scan() ?? [];
  }
  const survivors = live.map((target) => target.pid);
  const gone = (pid: number) => !survivors.includes(pid);
  return {
    supported: true,
    found: [...found],
    terminated: [...found].filter((pid) => gone(pid) && !killed.has(pid)),
    killed: [...killed].filter(gone),
    survivors,
    elapsedMs: Math.round(now() - started),
  };
}
