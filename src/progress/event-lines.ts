import type { EventOf, SupervisorEvent } from '../event-types.js';
import { eventTable, type CapabilityEvents } from '../events/capability-events.js';
import { formatDuration } from '../util/duration.js';
import { cleanLine, shorten } from '../util/clean-text.js';
import type { Style } from '../util/style.js';

/** A reply's message (or another text from outside) is shown in full in the event log; on a line, its start. */
export const MESSAGE_CHARS = 160;

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
 * A capability's event types are shown by the capability (`events`, each one's events.ts).
 */
export function eventLine(event: SupervisorEvent, style: Style, events: readonly CapabilityEvents[]): string | null {
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
    case 'human_edit_kept':
      return `  ${style.yellow('!')} ${cleanLine(event.issue)}`;
    case 'handed_to_manager':
      return (
        `  ${style.red('✗')} ${role} gave no valid reply in ${event.attempts} attempts; ` +
        `the Manager gets {"status": "error"} for it (on_exhausted: manager)`
      );
    case 'warning':
      return (
        `${style.yellow('!')} ${cleanLine(event.file)}` +
        `${event.line === undefined ? '' : `:${event.line}`}: ` +
        `${shorten(cleanLine(event.message), MESSAGE_CHARS)} (warning)`
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
      return eventTable(events).lines.get(event.type)?.(event, style) ?? null;
  }
}

// Spend figures a CLI reported that cannot be a spend, and were not counted.
function ignoredText(event: EventOf<'attempt_finished'>, style: Style): string {
  if (event.usageIgnored === undefined) return '';
  return (
    ` ${style.yellow('!')} reported spend ignored (not a finite, non-negative number): ` +
    `${cleanLine(event.usageIgnored.join(', '))}`
  );
}
