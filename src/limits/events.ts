import type { EventFields, StepPlace } from '../event-types.js';
import type { CapabilityEvents } from '../events/capability-events.js';
import { num, opt, type Checks } from '../events/parse.js';
import { MESSAGE_CHARS } from '../progress/event-lines.js';
import { cleanLine, shorten } from '../util/clean-text.js';
import { formatDuration } from '../util/duration.js';
import { localClock } from '../util/time.js';

declare module '../event-types.js' {
  interface EventFields {
    /** A usage limit hit: the step waits until `until` (SPEC §4b). */
    limit_wait: StepPlace & {
      until: string;
      waitMs: number;
      reason: string;
      cli: string;
      resetKnown: boolean;
      ignoredReset?: string;
      sharedLimitUnrecorded?: string;
      learntFrom?: string;
      learntAt?: string;
      sharedFile?: string;
    };
    /** The wait is over: the same attempt runs again. */
    limit_resumed: StepPlace & { waitedMs: number };
    /** A role's steps go to its fallback agent while its own is limited, or back (limits/fallback.ts). */
    agent_switched: StepPlace & {
      from: string;
      to: string;
      reason: 'usage_limit' | 'reset';
      cli?: string;
      until?: string;
    };
  }
}
declare module '../events/parse.js' {
  interface EventChecks {
    limit_wait: typeof LIMIT_WAIT;
    limit_resumed: typeof NONE;
    agent_switched: typeof NONE;
  }
}

// The fields the fold reads; the others pass through unchecked and unread.
const LIMIT_WAIT = { step: num, waitMs: opt(num) } satisfies Checks<EventFields['limit_wait']>;
const NONE = {};

/** The usage limits' waits and fallback switches: their lines, and the waits `status` and the report count. */
export const limitsEvents = {
  types: {
    limit_wait: {
      checks: LIMIT_WAIT,
      line: (event, style) =>
        `  ${style.yellow('⏸')} ${cleanLine(event.role)} hit ${cleanLine(event.cli)}'s usage limit; ` +
        `waiting until ${localClock(event.until)} (${formatDuration(event.waitMs)}${
          event.resetKnown
            ? ''
            : event.ignoredReset !== undefined
              ? `, the reset time given (${localClock(event.ignoredReset)}) is past or absurd`
              : ', no reset time given'
        }): ${shorten(cleanLine(event.reason), MESSAGE_CHARS)}`,
      live: (event) => ({
        line: true,
        waiting: `waiting for ${cleanLine(event.cli)}'s usage limit to reset at ${localClock(event.until)}`,
      }),
      // The figures (fold.ts's limitWaits and limitWaitMs) stay the core's: the report and status show them.
      fold: (event, { run, step }) => {
        const waited = event.waitMs !== undefined && event.waitMs > 0 ? event.waitMs : 0;
        const facts = step(event.step);
        facts.limitWaits++;
        facts.limitWaitMs += waited;
        if (waited > 0) run.limitWaitMs = (run.limitWaitMs ?? 0) + waited;
      },
    },
    limit_resumed: {
      checks: NONE,
      line: (event) => `  ▶ the limit has reset; ${cleanLine(event.role)} runs again with the same inputs`,
      live: () => ({ line: false, waiting: null }),
    },
    agent_switched: {
      checks: NONE,
      line: (event, style) => {
        const role = cleanLine(event.role);
        return event.reason === 'reset'
          ? `  ${style.yellow('⇄')} the usage limit is over; ${cleanLine(event.to)} takes ${role}'s steps again`
          : `  ${style.yellow('⇄')} ${cleanLine(event.from)} is limited` +
              `${event.until !== undefined ? ` until ${localClock(event.until)}` : ''}` +
              `${event.cli !== undefined ? ` (${cleanLine(event.cli)})` : ''}; ` +
              `${cleanLine(event.to)} takes ${role}'s steps (fallback:)`;
      },
      live: () => ({ line: true }),
    },
  },
} satisfies CapabilityEvents;
