import { groupRuns, signalGroup } from './group-kill.js';

/**
 * Stop everything an attempt started that is still running once it ended: the agent's
 * process group, SIGTERM then SIGKILL after `graceMs`. `pgid` null: the group is not the
 * agent's any more (its pid was reused), only tagged processes are stopped. Returns the
 * strongest signal sent, if any was.
 */
export async function stopLeftovers(pgid: number | null, _tag: string, graceMs: number, force = false): Promise<'SIGTERM' | 'SIGKILL' | null> {
  if (pgid === null || !signalGroup(pgid, force ? 'SIGKILL' : 'SIGTERM')) return null;
  if (force || (await gone(pgid, graceMs))) return force ? 'SIGKILL' : 'SIGTERM';
  signalGroup(pgid, 'SIGKILL');
  await gone(pgid, 1000);
  return 'SIGKILL';
}

async function gone(pgid: number, withinMs: number): Promise<boolean> {
  const deadline = performance.now() + withinMs;
  while (groupRuns(pgid)) {
    if (performance.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return true;
}
