import { isOutcomeKind, OUTCOME_WORDS } from '../errors.js';
import type { EventOf } from '../event-types.js';
import type { CapabilityEvents } from '../events/capability-events.js';
import { MESSAGE_CHARS } from '../progress/event-lines.js';
import { cleanLine, shorten } from '../util/clean-text.js';
import { localClock } from '../util/time.js';

declare module '../event-types.js' {
  interface EventFields {
    /** A resident run (--watch) waits for an edit of the board, since its pass ended so. */
    waiting: {
      for: 'board_change';
      reason: string;
      outcome: string;
      exitCode: number;
      since: string;
      until?: string;
      pid: number;
      watching: number;
      via: 'fs.watch' | 'polling';
      why?: string;
    };
    /** It woke: the board changed, or a usage limit's reset came. */
    woke: { by: 'change' | 'time'; files: string[]; waitedMs: number };
    /** An edit that does not check: it waits on. */
    edit_invalid: { files: string[]; file: string; line?: number; problem: string; problems: number };
  }
}
declare module '../events/parse.js' {
  interface EventChecks {
    waiting: typeof NONE;
    woke: typeof NONE;
    edit_invalid: typeof NONE;
  }
}

const NONE = {};

/** The resident run's waits: their lines, and what the live line shows between passes. */
export const watchEvents = {
  types: {
    waiting: {
      checks: NONE,
      line: (event, style) => `${style.yellow('⏸')} ${waitingText(event)}`,
      live: (event) => ({ line: true, resident: `waiting for an edit since ${localClock(event.time)}` }),
    },
    woke: {
      checks: NONE,
      line: (event) =>
        event.by === 'time'
          ? '▶ the usage limit has reset; carrying on from the board as it is'
          : `▶ ${filesText(event.files)} changed; carrying on from the board as it is`,
      live: () => ({ line: true, resident: null }),
    },
    edit_invalid: {
      checks: NONE,
      line: (event, style) =>
        `  ${style.yellow('!')} ${cleanLine(event.file)}` +
        `${event.line === undefined ? '' : `:${event.line}`}: ` +
        `${shorten(cleanLine(event.problem), MESSAGE_CHARS)}` +
        `${event.problems > 1 ? ` (and ${event.problems - 1} more problem(s))` : ''}; ` +
        `still waiting for a change`,
      live: () => ({ line: true }),
    },
  },
} satisfies CapabilityEvents;

/** What a resident run waits for, and why it is not running (pure; agent text cleaned). */
function waitingText(event: EventOf<'waiting'>): string {
  const until = event.until !== undefined ? ` or until ${localClock(event.until)} (the usage limit's reset)` : '';
  const via =
    event.via === 'polling'
      ? ` (comparing the files every few seconds: ${shorten(cleanLine(`${event.why}`), 80)})`
      : '';
  const ended = isOutcomeKind(event.outcome) ? OUTCOME_WORDS[event.outcome].short : cleanLine(event.outcome);
  return (
    `waiting for an edit of kanban.yaml, a task or a role file${until}${via} — ${ended}: ` +
    `${shorten(cleanLine(event.reason), MESSAGE_CHARS)}`
  );
}

function filesText(files: string[]): string {
  const list = files.map((file) => cleanLine(file));
  if (list.length === 0) return 'the board';
  return list.length > 3 ? `${list.slice(0, 3).join(', ')} and ${list.length - 3} more` : list.join(', ');
}
