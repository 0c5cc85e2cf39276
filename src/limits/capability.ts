import type { Invocation } from '../agent/invocation.js';
import type { AttemptPlace, Capability, OpenCapability } from '../loop/context.js';
import type { FallbackAgents } from './fallback.js';
import type { SharedAccount } from './shared.js';
import type { LimitWaits } from './limit-wait.js';
import { limitSettings } from './settings.js';

/**
 * Usage limits (SPEC §4b): a limit the CLI reports is waited out until its reset and the same
 * attempt runs again, spending no retry; a reset an adapter's CLI gives is shared with the other
 * supervisors of its account, whose limits are waited for before calling it (shared.ts). A run
 * started during a wait its board's last run left waits for the rest of it. A role with
 * `fallback:` roles has them take its steps meanwhile, and waits only when all are limited (fallback.ts).
 */
export const limits: OpenCapability = (kind): Capability => {
  let ready:
    | { waits: LimitWaits; fallbacks: FallbackAgents; accountOf: (attempt: AttemptPlace) => SharedAccount | undefined }
    | undefined;
  const where = ({ step, role, task }: AttemptPlace) => ({ step, role, task });
  return {
    async runStarted({ ctx, settings, deadline }) {
      // Loaded as a run starts: a board with nothing to run starts without the CLIs' adapters.
      const [{ sharedAccountOf }, { LimitWaits }, { FallbackAgents }] = await Promise.all([
        import('./shared.js'),
        import('./limit-wait.js'),
        import('./fallback.js'),
      ]);
      // The account of an agent run (one invocation, repeated), found once for all its attempts.
      let last: { invocation?: Invocation; shared?: SharedAccount | undefined } = {};
      const accountOf = ({ invocation, settings: its }: AttemptPlace) => {
        if (last.invocation !== invocation)
          last = {
            invocation,
            shared: sharedAccountOf(invocation, limitSettings(its.supervisor), ctx.board.dir, ctx.world.env),
          };
        return last.shared;
      };
      const waits = new LimitWaits(ctx, deadline);
      ready = { waits, fallbacks: new FallbackAgents(ctx, waits), accountOf };
      if (kind === 'run') await ready.waits.resume(limitSettings(settings.supervisor));
    },
    chooseAgent: async (choice) => ready?.fallbacks.choose(choice),
    async beforeAttempt(attempt) {
      const shared = ready?.accountOf(attempt);
      const ignored =
        shared && (await ready?.waits.shared(limitSettings(attempt.settings.supervisor), where(attempt), shared));
      return ignored ? { sharedLimitIgnored: ignored } : undefined;
    },
    async afterFailure(attempt) {
      if (attempt.failure.kind !== 'usage_limit' || !ready) return undefined;
      const { waits, fallbacks } = ready;
      const shared = ready.accountOf(attempt);
      if (!fallbacks.has(attempt.role))
        await waits.own(limitSettings(attempt.settings.supervisor), where(attempt), attempt.failure, shared);
      // The next attempt's agent is chosen by its chain: a fallback now, or this one after a wait for all.
      else
        fallbacks.limited(
          attempt.invocation.agent ?? attempt.role,
          waits.learn(limitSettings(attempt.settings.supervisor), attempt.failure, shared),
        );
      return 'again';
    },
  };
};
