import type { StepPlace } from '../event-types.js';
import type { CapabilityEvents } from '../events/capability-events.js';
import { MESSAGE_CHARS } from '../progress/event-lines.js';
import { cleanLine, shorten } from '../util/clean-text.js';
import { formatDuration } from '../util/duration.js';

declare module '../event-types.js' {
  interface EventFields {
    /** A service error: the same attempt runs again after `waitMs` (SPEC §4b). */
    backoff: StepPlace & { retry: number; of: number; waitMs: number; reason: string; cli: string };
  }
}
declare module '../events/parse.js' {
  interface EventChecks {
    backoff: typeof NONE;
  }
}

const NONE = {};

/** The service-error back-off: its line, and what the live line waits for meanwhile. */
export const backoffEvents = {
  types: {
    backoff: {
      checks: NONE,
      line: (event, style) =>
        `  ${style.yellow('↻')} ${cleanLine(event.cli)} service error; ` +
        `${cleanLine(event.role)} again in ${formatDuration(event.waitMs)} (${event.retry}/${event.of}): ` +
        `${shorten(cleanLine(event.reason), MESSAGE_CHARS)}`,
      live: (event) => ({
        line: true,
        waiting: `${cleanLine(event.cli)} service error: trying again in ${formatDuration(event.waitMs)}`,
      }),
    },
  },
} satisfies CapabilityEvents;
