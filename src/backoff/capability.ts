import type { Invocation } from '../agent/invocation.js';
import type { Capability, OpenCapability } from '../loop/context.js';
import { throwIfStopped } from '../loop/world.js';
import { backoffSettings } from './settings.js';

// However many service errors in a row, the next call is at most this far off.
const MAX_BACKOFF_MS = 10 * 60_000;

/**
 * A transient service error (SPEC §4b: overloaded, failing, no network): the same attempt runs
 * again after a backoff that doubles, spending no retry — at most transient_retries times per
 * agent run; after that it counts as invalid output like any other.
 */
export const backoff: OpenCapability = (): Capability => {
  // The agent run (one invocation, repeated) whose service errors are counted.
  let counted: { invocation?: Invocation; retries: number } = { retries: 0 };
  return {
    async afterFailure({ ctx, failure, invocation, settings: all, step, role, task }) {
      if (failure.kind !== 'transient') return undefined;
      const settings = backoffSettings(all.supervisor);
      if (counted.invocation !== invocation) counted = { invocation, retries: 0 };
      if (counted.retries >= settings.transientRetries) return undefined;
      const retry = ++counted.retries;
      const waitMs = Math.min(settings.transientBackoffMs * 2 ** (retry - 1), MAX_BACKOFF_MS);
      const about = { step, role, task, retry, of: settings.transientRetries, waitMs };
      ctx.events.emit('backoff', { ...about, reason: failure.detail, cli: failure.cli });
      await ctx.world.clock.sleep(waitMs, ctx.world.stop.interrupt);
      throwIfStopped(ctx.world.stop);
      return 'again';
    },
  };
};
