import path from 'node:path';
import { isOutcomeKind, OUTCOME_WORDS, type OutcomeKind } from '../errors.js';
import type { EventOf } from '../event-types.js';
import { formatDuration } from '../util/duration.js';
import { localClock } from '../util/time.js';
import type { NotifyTarget } from './target.js';

/**
 * One notification, whatever its format; the generic JSON format sends it as it is (README,
 * "Notifications"). `event` says why: the run ended, a long usage-limit wait began, or a
 * resident run (--watch) stopped to wait for a person.
 */
export interface Notice {
  event: 'run_ended' | 'limit_wait' | 'waiting' | 'agent_switched' | 'set_aside';
  /** kanban.yaml, absolute. */
  board: string;
  /** The task of the last step started ('' if none). */
  task: string;
  run: string;
  time: string;
  outcome: OutcomeKind | null;
  exitCode: number | null;
  /** What happened: for the end of a run, the outcome's line as printed. */
  message: string;
  /** What to do next. */
  next: string;
  /** A short headline: the board's folder and what happened. */
  title: string;
}

/** Where the run stands when a notice is made. */
export interface NoticePlace {
  file: string;
  task: string;
  run: string;
  time: Date;
}

/**
 * The notice for a run's end (pure): `line` is the outcome as printed;
 * what to do next is the outcome table's (errors.ts).
 */
export function endNotice(outcome: { kind: OutcomeKind; exitCode: number }, line: string, at: NoticePlace): Notice {
  const words = OUTCOME_WORDS[outcome.kind];
  return {
    event: 'run_ended',
    ...where(at),
    outcome: outcome.kind,
    exitCode: outcome.exitCode,
    message: line,
    next: nextOf(words.long),
    title: `${boardName(at.file)}: ${words.short} (exit ${outcome.exitCode})`,
  };
}

/** The notice for a usage-limit wait (pure): only one longer than `thresholdMs`, as its `limit_wait` event tells it. */
export function limitWaitNotice(
  event: EventOf<'limit_wait'>,
  thresholdMs: number,
  at: NoticePlace,
): Notice | undefined {
  const { waitMs } = event;
  if (!(waitMs > thresholdMs)) return undefined;
  const who = `${event.role}'s ${event.cli} usage limit`;
  return {
    event: 'limit_wait',
    ...where(at),
    outcome: null,
    exitCode: null,
    message: `${who}: waiting until ${localClock(event.until)} (${formatDuration(waitMs)}), nothing to do.`,
    next: 'Nothing: the run carries on by itself after the reset.',
    title: `${boardName(at.file)}: waiting until ${localClock(event.until)}`,
  };
}

/** The notice for a switch of a role's agent to a fallback or back (pure), as its `agent_switched` event tells it. */
export function agentSwitchedNotice(event: EventOf<'agent_switched'>, at: NoticePlace): Notice {
  const { role, to } = event;
  const limited = event.reason !== 'reset';
  const until = event.until !== undefined ? ` until ${localClock(event.until)}` : '';
  return {
    event: 'agent_switched',
    ...where(at),
    outcome: null,
    exitCode: null,
    message: limited
      ? `${event.from} is limited${until}${event.cli !== undefined ? ` (${event.cli})` : ''}; ` +
        `${to} takes ${role}'s steps meanwhile (fallback:).`
      : `The usage limit is over; ${to} takes ${role}'s steps again.`,
    next: 'Nothing: the run carries on by itself.',
    title: `${boardName(at.file)}: ${role} now runs ${to}`,
  };
}

/** The notice for a resident run (--watch) that stopped to wait for a person, from its `waiting` event (pure). */
export function waitingNotice(event: EventOf<'waiting'>, at: NoticePlace): Notice {
  const kind: OutcomeKind = isOutcomeKind(event.outcome) ? event.outcome : 'bad_input';
  const until = event.until !== undefined ? ` or the usage limit's reset at ${localClock(event.until)}` : '';
  return {
    event: 'waiting',
    ...where(at),
    outcome: kind,
    exitCode: event.exitCode,
    message: `Waiting (--watch): ${event.reason}`,
    next:
      `${nextOf(OUTCOME_WORDS[kind].long)} The run is still there: ` +
      `it carries on once an edit of the board validates${until}.`,
    title: `${boardName(at.file)}: ${OUTCOME_WORDS[kind].short}, waiting for a person`,
  };
}

/**
 * The notice for tasks the Manager set aside and went on without (kanban.yaml `parked:`), from `board_written` (pure).
 */
export function setAsideNotice(event: EventOf<'board_written'>, at: NoticePlace): Notice | undefined {
  const aside = event.set_aside ?? [];
  if (aside.length === 0) return undefined;
  const named = aside.map((entry) => `${entry.task} (${entry.question})`).join('; ');
  const going = event.status === 'ok' ? ' The run goes on with the other tasks.' : '';
  return {
    event: 'set_aside',
    ...where(at),
    outcome: null,
    exitCode: null,
    message: `Set aside for a person by the Manager: ${named}.${going}`,
    next: 'Answer in the task file (or remove its entry from parked: in kanban.yaml): the next run takes it first.',
    title: `${boardName(at.file)}: ${aside.length === 1 ? `${aside[0]?.task}` : `${aside.length} tasks`} set aside`,
  };
}

/** The HTTP request for a target (pure): method POST, these headers and this body. */
export function requestFor(target: NotifyTarget, notice: Notice): { headers: Record<string, string>; body: string } {
  switch (target.format) {
    case 'slack':
      return {
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ text: markupFree(plainText(notice, true)) }),
      };
    case 'ntfy':
      // Header values must be ISO-8859-1: the title is kept to ASCII.
      return {
        headers: {
          'content-type': 'text/plain; charset=utf-8',
          title: ascii(`kanban-supervisor: ${notice.title}`),
          priority: urgent(notice) ? 'high' : 'default',
          tags: urgent(notice) ? 'warning' : 'white_check_mark',
        },
        body: plainText(notice, false),
      };
    default:
      return { headers: { 'content-type': 'application/json' }, body: JSON.stringify(notice) };
  }
}

/** The notice as lines of text: what happened, the board and task, what to do next (pure). */
export function plainText(notice: Notice, withTitle: boolean): string {
  const lines = [
    ...(withTitle ? [`kanban-supervisor: ${notice.title}`] : []),
    notice.message,
    `Board: ${notice.board}${notice.task ? ` · task: ${notice.task}` : ''}` +
      `${notice.exitCode === null ? '' : ` · exit ${notice.exitCode}`}`,
  ];
  if (notice.next && !notice.message.includes(notice.next)) lines.push(`Next: ${notice.next}`);
  return lines.join('\n');
}

/**
 * Text for a receiver that reads markup (Slack's mrkdwn, a desktop's body markup), shown as
 * written, never acted on (pure): & < > as entities, so `<!channel>` pings nobody and
 * `<https://…|Click here>` disguises no link; and @channel, @here, @everyone, @all broken by a
 * word joiner, for receivers that turn those into mentions themselves.
 */
export function markupFree(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/@(?=(channel|here|everyone|all)\b)/gi, '@\u2060');
}

// A run that needs a person is urgent; one done, or waiting for a reset by itself, is not.
function urgent(notice: Notice): boolean {
  return notice.exitCode !== null && notice.exitCode !== 0;
}

function where(at: NoticePlace): Pick<Notice, 'board' | 'task' | 'run' | 'time'> {
  return { board: at.file, task: at.task, run: at.run, time: at.time.toISOString() };
}

function boardName(file: string): string {
  return path.basename(path.dirname(file)) || file;
}

// The table's long wording says what happened, then (after the first
// ". ") what to do; the first part alone when there is nothing to do.
function nextOf(long: string): string {
  const cut = long.indexOf('. ');
  return cut === -1 ? 'See the message.' : `${long.slice(cut + 2)}.`;
}

function ascii(text: string): string {
  return text.replace(/[^\x20-\x7e]/g, '?');
}
