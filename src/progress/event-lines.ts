import { isOutcomeKind, OUTCOME_WORDS } from '../errors.js';
import type { EventOf, SupervisorEvent } from '../event-types.js';
import { formatDuration } from '../util/duration.js';
import { cleanLine, shorten } from '../util/clean-text.js';
import { localClock } from '../util/time.js';
import type { Style } from './style.js';

// A reply's message is shown in full in the event log; on a line, its start.
const MESSAGE_CHARS = 160;

/**
 * The mark of a reply status: ok in green, blocked and escalate in yellow,
 * error in red — never a green ✓ for anything but ok.
 */
export function statusMark(status: unknown, style: Style): string {
  switch (status) {
    case 'ok':
      return style.green('✓');
    case 'blocked':
      return style.yellow('⊘');
    case 'escalate':
      return style.yellow('⚑');
    default:
      return style.red('✗');
  }
}

/** `status: message start`, agent text cleaned for a terminal. */
function replyText(status: string | undefined, message: string | undefined): string {
  const said = message === undefined ? '' : cleanLine(message);
  return `${cleanLine(`${status}`)}${said ? `: ${shorten(said, MESSAGE_CHARS)}` : ''}`;
}

/**
 * The line an event adds to a run's output, or null for events that add none (pure). Used by
 * both the plain lines and the live terminal; every agent- or board-supplied text is cleaned.
 */
export function eventLine(event: SupervisorEvent, style: Style): string | null {
  const role = cleanLine('role' in event ? (event.role ?? '') : '');
  switch (event.type) {
    case 'attempt_finished': {
      const took = ` ${style.dim(`(${formatDuration(event.durationMs)})`)}`;
      if (event.valid)
        return (
          `  ${statusMark(event.status, style)} ${role} replied ${replyText(event.status, event.message)}${took}` +
          `${ignoredText(event, style)}`
        );
      return (
        `  ${style.red('✗')} ${role} attempt ${event.attempt}/${event.of}: ` +
        `${cleanLine(event.issue ?? event.end)}${took}${ignoredText(event, style)}`
      );
    }
    case 'retry':
      return `  ${style.yellow('↻')} retry ${event.retry}/${event.maxRetries} with the exact same inputs`;
    case 'board_written':
      return `  → next task: ${event.current === null ? '(none)' : cleanLine(`${event.current}`)}`;
    case 'git_committed':
      return `  ${style.dim(
        `committed ${event.commit.slice(0, 12)} (${event.paths} path${event.paths === 1 ? '' : 's'})`,
      )}`;
    case 'human_edit_kept':
      return `  ${style.yellow('!')} ${cleanLine(event.issue)}`;
    case 'limit_wait':
      return (
        `  ${style.yellow('⏸')} ${role} hit ${cleanLine(event.cli)}'s usage limit; ` +
        `waiting until ${localClock(event.until)} (${formatDuration(event.waitMs)}${
          event.resetKnown
            ? ''
            : event.ignoredReset !== undefined
              ? `, the reset time given (${localClock(event.ignoredReset)}) is past or absurd`
              : ', no reset time given'
        }): ${shorten(cleanLine(event.reason), MESSAGE_CHARS)}`
      );
    case 'agent_switched':
      return event.reason === 'reset'
        ? `  ${style.yellow('⇄')} the usage limit is over; ${cleanLine(event.to)} takes ${role}'s steps again`
        : `  ${style.yellow('⇄')} ${cleanLine(event.from)} is limited` +
            `${event.until !== undefined ? ` until ${localClock(event.until)}` : ''}` +
            `${event.cli !== undefined ? ` (${cleanLine(event.cli)})` : ''}; ` +
            `${cleanLine(event.to)} takes ${role}'s steps (fallback:)`;
    case 'limit_resumed':
      return `  ▶ the limit has reset; ${role} runs again with the same inputs`;
    case 'handed_to_manager':
      return (
        `  ${style.red('✗')} ${role} gave no valid reply in ${event.attempts} attempts; ` +
        `the Manager gets {"status": "error"} for it (on_exhausted: manager)`
      );
    case 'waiting':
      return `${style.yellow('⏸')} ${waitingText(event)}`;
    case 'woke':
      return event.by === 'time'
        ? '▶ the usage limit has reset; carrying on from the board as it is'
        : `▶ ${filesText(event.files)} changed; carrying on from the board as it is`;
    case 'warning':
      return (
        `${style.yellow('!')} ${cleanLine(event.file)}` +
        `${event.line === undefined ? '' : `:${event.line}`}: ` +
        `${shorten(cleanLine(event.message), MESSAGE_CHARS)} (warning)`
      );
    case 'edit_invalid':
      return (
        `  ${style.yellow('!')} ${cleanLine(event.file)}` +
        `${event.line === undefined ? '' : `:${event.line}`}: ` +
        `${shorten(cleanLine(event.problem), MESSAGE_CHARS)}` +
        `${event.problems > 1 ? ` (and ${event.problems - 1} more problem(s))` : ''}; ` +
        `still waiting for a change`
      );
    case 'backoff':
      return (
        `  ${style.yellow('↻')} ${cleanLine(event.cli)} service error; ` +
        `${role} again in ${formatDuration(event.waitMs)} (${event.retry}/${event.of}): ` +
        `${shorten(cleanLine(event.reason), MESSAGE_CHARS)}`
      );
    case 'step_started':
      return event.trigger !== undefined
        ? `step ${event.step} · ${role} (periodic) · ${event.done_tasks ?? 0} task(s) done since its last run`
        : `step ${event.step} · ${role} · ${cleanLine(event.task)}`;
    case 'attempt_started':
      // A re-run after a usage limit or a service error is the same attempt again.
      return event.attempt > 1 || event.rerun !== undefined
        ? `  attempt ${event.attempt}/${event.of}${event.rerun === undefined ? '' : ' again'} · ${role}`
        : null;
    case 'run_started':
      return `run ${event.run} on ${cleanLine(event.board)} (pid ${event.pid})`;
    default:
      return null;
  }
}

/** What a resident run waits for, and why it is not running (pure; agent text cleaned). */
export function waitingText(event: EventOf<'waiting'>): string {
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

// Spend figures a CLI reported that cannot be a spend, and were not counted.
function ignoredText(event: EventOf<'attempt_finished'>, style: Style): string {
  if (event.usageIgnored === undefined) return '';
  return (
    ` ${style.yellow('!')} reported spend ignored (not a finite, non-negative number): ` +
    `${cleanLine(event.usageIgnored.join(', '))}`
  );
}

function filesText(files: string[]): string {
  const list = files.map((file) => cleanLine(file));
  if (list.length === 0) return 'the board';
  return list.length > 3 ? `${list.slice(0, 3).join(', ')} and ${list.length - 3} more` : list.join(', ');
}
