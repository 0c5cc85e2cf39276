import { groupRuns, signalGroup } from './group-kill.js';
import { sweepTagged } from './sweep.js';

/** How the leftovers of an attempt are stopped. */
export interface LeftoverOptions {
  /** SIGKILL at once (a second Ctrl-C). */
  force?: boolean;
  /** The agent's start time (clock ticks since boot): only later processes can be what it started. */
  since?: number;
}

/**
 * Stop everything an attempt started that still runs once it ended: the agent's process group
 * and, on Linux, every process carrying the agent run's tag — even one that left the group or
 * the session. SIGTERM, then SIGKILL after `graceMs`. `pgid` null: the group is not the agent's
 * any more (its pid was reused), only tagged processes are stopped. Returns the strongest
 * signal sent, if any was.
 */
export async function stopLeftovers(
  pgid: number | null,
  tag: string,
  graceMs: number,
  options: LeftoverOptions = {},
): Promise<'SIGTERM' | 'SIGKILL' | null> {
  const first = options.force ? 'SIGKILL' : 'SIGTERM';
  const grouped = pgid !== null && signalGroup(pgid, first);
  const deadline = performance.now() + graceMs;
  const swept = await sweepTagged(tag, {
    graceMs: options.force ? 0 : graceMs,
    ...(options.since !== undefined && { since: options.since }),
  });
  let strongest: 'SIGTERM' | 'SIGKILL' | null = grouped ? first : null;
  if (swept.supported && swept.found.length > 0)
    strongest = swept.killed.length > 0 || options.force ? 'SIGKILL' : (strongest ?? 'SIGTERM');
  // A group member that cleared its environment is no tagged process: the group still reaches it.
  if (grouped && !(await gone(pgid, deadline - performance.now()))) {
    signalGroup(pgid, 'SIGKILL');
    await gone(pgid, 1000);
    strongest = 'SIGKILL';
  }
  return strongest;
}

async function gone(pgid: number, withinMs: number): Promise<boolean> {
  const deadline = performance.now() + withinMs;
  while (groupRuns(pgid)) {
    if (performance.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return true;
}
