import { OUTCOME_WORDS, type OutcomeKind } from '../errors.js';
import type { SupervisorEvent } from '../events/event-types.js';
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
function replyText(status: unknown, message: unknown): string {
  const said = typeof message === 'string' ? cleanLine(message) : '';
  return `${cleanLine(String(status))}${said ? `: ${shorten(said, MESSAGE_CHARS)}` : ''}`;
}

/**
 * The line an event adds to a run's output, or null for events that add none (pure). Used by
 * both the plain lines and the live terminal; every agent- or board-supplied text is cleaned.
 */
export function eventLine(event: SupervisorEvent, style: Style): string | null {
  const role = cleanLine(String(event.role ?? ''));
  const task = cleanLine(String(event.task ?? ''));
  const took = typeof event.durationMs === 'number' ? ` ${style.dim(`(${formatDuration(event.durationMs)})`)}` : '';
  switch (event.type) {
    case 'attempt_finished':
      if (event.valid)
        return (
          `  ${statusMark(event.status, style)} ${role} replied ${replyText(event.status, event.message)}${took}` +
          `${ignoredText(event, style)}`
        );
      return (
        `  ${style.red('✗')} ${role} attempt ${String(event.attempt)}/${String(event.of ?? '?')}: ` +
        `${cleanLine(String(event.issue ?? event.end))}${took}${ignoredText(event, style)}`
      );
    case 'retry':
      return (
        `  ${style.yellow('↻')} retry ${String(event.retry)}/${String(event.maxRetries)} ` +
        `with the exact same inputs`
      );
    case 'board_written':
      return `  → next task: ${event.current === null ? '(none)' : cleanLine(String(event.current))}`;
    case 'git_committed':
      return `  ${style.dim(
        `committed ${String(event.commit).slice(0, 12)} (${Number(event.paths)} path${event.paths === 1 ? '' : 's'})`,
      )}`;
    case 'human_edit_kept':
      return `  ${style.yellow('!')} ${cleanLine(String(event.issue))}`;
    case 'limit_wait':
      return (
        `  ${style.yellow('⏸')} ${role} hit ${cleanLine(String(event.cli))}'s usage limit; ` +
        `waiting until ${localClock(String(event.until))} (${formatDuration(Number(event.waitMs))}${
          event.resetKnown
            ? ''
            : typeof event.ignoredReset === 'string'
              ? `, the reset time given (${localClock(event.ignoredReset)}) is past or absurd`
              : ', no reset time given'
        }): ${shorten(cleanLine(String(event.reason)), MESSAGE_CHARS)}`
      );
    case 'agent_switched':
      return event.reason === 'reset'
        ? `  ${style.yellow('⇄')} the usage limit is over; ${cleanLine(String(event.to))} takes ${role}'s steps again`
        : `  ${style.yellow('⇄')} ${cleanLine(String(event.from))} is limited` +
            `${typeof event.until === 'string' ? ` until ${localClock(event.until)}` : ''}` +
            `${typeof event.cli === 'string' ? ` (${cleanLine(event.cli)})` : ''}; ` +
            `${cleanLine(String(event.to))} takes ${role}'s steps (fallback:)`;
    case 'limit_resumed':
      return `  ▶ the limit has reset; ${role} runs again with the same inputs`;
    case 'handed_to_manager':
      return (
        `  ${style.red('✗')} ${role} gave no valid reply in ${String(event.attempts)} attempts; ` +
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
        `${style.yellow('!')} ${cleanLine(String(event.file))}` +
        `${event.line === undefined ? '' : `:${String(event.line)}`}: ` +
        `${shorten(cleanLine(String(event.message)), MESSAGE_CHARS)} (warning)`
      );
    case 'edit_invalid':
      return (
        `  ${style.yellow('!')} ${cleanLine(String(event.file))}` +
        `${event.line === undefined ? '' : `:${String(event.line)}`}: ` +
        `${shorten(cleanLine(String(event.problem)), MESSAGE_CHARS)}` +
        `${Number(event.problems) > 1 ? ` (and ${Number(event.problems) - 1} more problem(s))` : ''}; ` +
        `still waiting for a change`
      );
    case 'backoff':
      return (
        `  ${style.yellow('↻')} ${cleanLine(String(event.cli))} service error; ` +
        `${role} again in ${formatDuration(Number(event.waitMs))} (${String(event.retry)}/${String(event.of)}): ` +
        `${shorten(cleanLine(String(event.reason)), MESSAGE_CHARS)}`
      );
    default:
      return step(event, role, task);
  }
}

/** What a resident run waits for, and why it is not running (pure; agent text cleaned). */
export function waitingText(event: SupervisorEvent): string {
  const until = typeof event.until === 'string' ? ` or until ${localClock(event.until)} (the usage limit's reset)` : '';
  const via =
    event.via === 'polling'
      ? ` (comparing the files every few seconds: ${shorten(cleanLine(String(event.why)), 80)})`
      : '';
  const ended = Object.hasOwn(OUTCOME_WORDS, String(event.outcome))
    ? OUTCOME_WORDS[event.outcome as OutcomeKind].short
    : cleanLine(String(event.outcome));
  return (
    `waiting for an edit of kanban.yaml, a task or a role file${until}${via} — ${ended}: ` +
    `${shorten(cleanLine(String(event.reason)), MESSAGE_CHARS)}`
  );
}

// Spend figures a CLI reported that cannot be a spend, and were not counted.
function ignoredText(event: SupervisorEvent, style: Style): string {
  if (!Array.isArray(event.usageIgnored)) return '';
  return (
    ` ${style.yellow('!')} reported spend ignored (not a finite, non-negative number): ` +
    `${cleanLine(event.usageIgnored.map(String).join(', '))}`
  );
}

function filesText(files: unknown): string {
  const list = Array.isArray(files) ? files.map((file) => cleanLine(String(file))) : [];
  if (list.length === 0) return 'the board';
  return list.length > 3 ? `${list.slice(0, 3).join(', ')} and ${list.length - 3} more` : list.join(', ');
}

function step(event: SupervisorEvent, role: string, task: string): string | null {
  if (event.type === 'step_started' && event.trigger !== undefined)
    return (
      `step ${String(event.step)} · ${role} (periodic) · ${String(event.done_tasks ?? 0)} ` +
      `task(s) done since its last run`
    );
  if (event.type === 'step_started') return `step ${String(event.step)} · ${role} · ${task}`;
  // A re-run after a usage limit or a service error is the same attempt again.
  if (event.type === 'attempt_started' && ((event.attempt ?? 1) > 1 || event.rerun !== undefined))
    return (
      `  attempt ${String(event.attempt)}/${String(event.of)}` +
      `${event.rerun === undefined ? '' : ' again'} · ${role}`
    );
  if (event.type === 'run_started')
    return `run ${event.run} on ${cleanLine(String(event.board))} (pid ${String(event.pid)})`;
  return null;
}
