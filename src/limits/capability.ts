import type { Invocation } from '../agent/invocation.js';
import type { AttemptPlace, Capability, OpenCapability } from '../loop/context.js';
import type { SharedAccount } from './shared.js';
import type { LimitWaits } from './limit-wait.js';

/**
 * Usage limits (SPEC §4b): a limit the CLI reports is waited out until its reset and the same
 * attempt runs again, spending no retry; a reset an adapter's CLI gives is shared with the other
 * supervisors of its account, whose limits are waited for before calling it (shared.ts). A run
 * started during a wait its board's last run left waits for the rest of it.
 */
export const limits: OpenCapability = (kind): Capability => {
  let ready: { waits: LimitWaits; accountOf: (attempt: AttemptPlace) => SharedAccount | undefined } | undefined;
  const where = ({ step, role, task }: AttemptPlace) => ({ step, role, task });
  return {
    async runStarted({ ctx, settings }) {
      // Loaded as a run starts: a board with nothing to run starts without the CLIs' adapters.
      const [{ sharedAccountOf }, { LimitWaits }] = await Promise.all([
        import('./shared.js'),
        import('./limit-wait.js'),
      ]);
      // The account of an agent run (one invocation, repeated), found once for all its attempts.
      let last: { invocation?: Invocation; shared?: SharedAccount | undefined } = {};
      const accountOf = ({ invocation, settings: its }: AttemptPlace) => {
        if (last.invocation !== invocation)
          last = { invocation, shared: sharedAccountOf(invocation, its, ctx.board.dir, ctx.world.env) };
        return last.shared;
      };
      ready = { waits: new LimitWaits(ctx), accountOf };
      if (kind === 'run') await ready.waits.resume(settings);
    },
    async beforeAttempt(attempt) {
      const shared = ready?.accountOf(attempt);
      const ignored = shared && (await ready?.waits.shared(attempt.settings, where(attempt), shared));
      return ignored ? { sharedLimitIgnored: ignored } : undefined;
    },
    async afterFailure(attempt) {
      if (attempt.failure.kind !== 'usage_limit' || !ready) return undefined;
      await ready.waits.own(attempt.settings, where(attempt), attempt.failure, ready.accountOf(attempt));
      return 'again';
    },
  };
};
