import { formatDuration } from '../util/duration.js';
import type { SupervisorEvent } from '../log/events.js';

/** One human line for an event, or null for events that need none (pure). */
export function describeEvent(event: SupervisorEvent): string | null {
  const where = `${event.role ?? ''} · ${event.task ?? ''}`;
  switch (event.type) {
    case 'run_started':
      return `run ${event.run} on ${String(event.board)} (pid ${String(event.pid)})`;
    case 'step_started':
      return `step ${event.step} · ${where}`;
    case 'attempt_started':
      return (event.attempt ?? 1) > 1 ? `  attempt ${event.attempt}/${String(event.of)} · ${event.role}` : null;
    case 'attempt_finished':
      return event.valid
        ? `  ✓ ${event.role} replied ${String(event.status)} (${formatDuration(Number(event.durationMs))})`
        : `  ✗ ${event.role} attempt ${event.attempt}: ${String(event.issue ?? event.end)} (${formatDuration(Number(event.durationMs))})`;
    case 'retry':
      return `  ↻ retry ${String(event.retry)}/${String(event.maxRetries)} with the exact same inputs`;
    case 'board_written':
      return `  → next task: ${event.current === null ? '(none)' : String(event.current)}`;
    case 'human_edit_kept':
      return `  ! ${String(event.issue)}`;
    default:
      return null;
  }
}

/** Writes plain, timestamped lines: for pipes, CI and log files (no escape codes). */
export function plainReporter(write: (text: string) => void): (event: SupervisorEvent) => void {
  return (event) => {
    const line = describeEvent(event);
    if (line) write(`${event.time.slice(11, 19)} ${line}\n`);
  };
}
