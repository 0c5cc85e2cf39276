import type { Invocation } from '../agent/invocation.js';
import type { AttemptPlace, Capability, OpenCapability, RunContext } from '../loop/context.js';
import { sharedAccountOf, type SharedAccount } from './shared.js';
import { LimitWaits } from './wait.js';

/**
 * Usage limits (SPEC §4b): a limit the CLI reports is waited out until its reset and the same
 * attempt runs again, spending no retry; a reset an adapter's CLI gives is shared with the other
 * supervisors of its account, whose limits are waited for before calling it (shared.ts). A run
 * started during a wait its board's last run left waits for the rest of it.
 */
export const limits: OpenCapability = (kind): Capability => {
  let waits: LimitWaits | undefined;
  const waitsOf = (ctx: RunContext) => (waits ??= new LimitWaits(ctx));
  // The account of the agent run (one invocation, repeated), found once for all its attempts.
  let account: { invocation?: Invocation; shared?: SharedAccount | undefined } = {};
  const sharedOf = ({ ctx, invocation, settings }: AttemptPlace) => {
    if (account.invocation !== invocation)
      account = { invocation, shared: sharedAccountOf(invocation, settings, ctx.board.dir, ctx.world.env) };
    return account.shared;
  };
  return {
    async runStarted({ ctx, settings }) {
      if (kind === 'run') await waitsOf(ctx).resume(settings);
    },
    async beforeAttempt(attempt) {
      const { ctx, settings, step, role, task } = attempt;
      const shared = sharedOf(attempt);
      const ignored = shared && (await waitsOf(ctx).shared(settings, { step, role, task }, shared));
      return ignored ? { sharedLimitIgnored: ignored } : undefined;
    },
    async afterFailure(attempt) {
      const { ctx, failure, settings, step, role, task } = attempt;
      if (failure.kind !== 'usage_limit') return undefined;
      await waitsOf(ctx).own(settings, { step, role, task }, failure, sharedOf(attempt));
      return 'again';
    },
  };
};
