import path from 'node:path';
import { formatDuration } from '../util/duration.js';
import type { HistoryWindow } from '../history/latest.js';
import type { AttemptRecord, RunEnd } from '../history/records.js';
import type { LockStatus, StatusReport } from '../commands/status.js';

/** `status` as a person reads it (pure but for the clock in `now`). */
export function formatStatus(report: StatusReport, now: Date = new Date()): string {
  const name = path.basename(report.file);
  const phase = report.phase === null ? 'no phase' : `phase ${report.phase}${report.subPhase ? `/${report.subPhase}` : ''}`;
  const lines = [`${name} · ${phase} · current ${report.current ?? '(none: nothing left to run)'}`];
  lines.push(`Supervisor: ${lockText(report.lock, now)}`);
  lines.push(`Tasks (${report.tasks.length}):`);
  const width = Math.max(4, ...report.tasks.map((t) => t.task.length));
  const roleWidth = Math.max(4, ...report.tasks.map((t) => (t.role ?? '?').length));
  for (const task of report.tasks) {
    const last = task.problem ? `! ${task.problem}` : task.last ? attemptText(task.last) : notFound(report.history, 'no outcome', 'not run yet');
    lines.push(`  ${task.current ? '→' : ' '} ${task.task.padEnd(width)}  ${(task.role ?? '?').padEnd(roleWidth)}  ${last}`);
  }
  if (report.lastRun) {
    const run = report.lastRun;
    const ended = run.end ? endText(run.end, false) : report.lock.state === 'running' ? 'still running' : 'no end recorded (the supervisor was killed or crashed)';
    const start = run.startNotRead ? `started before ${stamp(run.start)} (${beyond(report.history)})` : stamp(run.start);
    lines.push(`Last run: ${start}, ${run.steps} step(s): ${ended}`);
  } else {
    lines.push(`Last run: ${notFound(report.history, 'none', 'none recorded (.kanban-supervisor/events.jsonl is empty or missing)')}`);
  }
  if (report.lastHalt) lines.push(`Last halt: ${stamp(report.lastHalt.time)}: ${endText(report.lastHalt)}`);
  else if (report.lastRun && !report.history.readAll) lines.push(`Last halt: ${notFound(report.history, 'none', '')}`);
  return `${lines.join('\n')}\n`;
}

// Status reads the history from its end and stops at a bound: "nothing found" is only
// "nothing ever" when it read it all.
function notFound(history: HistoryWindow, inWindow: string, ever: string): string {
  return history.readAll ? ever : `${inWindow} in the last ${size(history.read)} of history`;
}

function beyond(history: HistoryWindow): string {
  return `further back than the last ${size(history.read)} of history read`;
}

function size(bytes: number): string {
  const [value, unit] = bytes >= 2 ** 20 ? [bytes / 2 ** 20, 'MiB'] : bytes >= 1024 ? [bytes / 1024, 'KiB'] : [bytes, 'bytes'];
  return `${value >= 10 || Number.isInteger(value) ? Math.round(value) : value.toFixed(1)} ${unit}`;
}

function lockText(lock: LockStatus, now: Date): string {
  switch (lock.state) {
    case 'free':
      return 'none running (the board is not locked)';
    case 'running':
      return `running: pid ${lock.pid} since ${stamp(lock.since)} (${formatDuration(now.getTime() - Date.parse(lock.since))})`;
    case 'stale':
      return `none running: pid ${lock.pid} (since ${stamp(lock.since)}) is gone and left its lock; the next run takes it over`;
    default:
      return lock.pid === undefined
        ? 'the board is locked but the owner is not recorded'
        : `locked by pid ${lock.pid} on ${String(lock.host)} since ${stamp(String(lock.since))} (another host: cannot check that it still runs)`;
  }
}

function attemptText(attempt: AttemptRecord): string {
  const when = `step ${attempt.step}, ${stamp(attempt.start)}`;
  if (!attempt.finished) return `attempt ${attempt.attempt}/${attempt.of} started, no end recorded (${when})`;
  const took = formatDuration(attempt.finished.durationMs);
  if (attempt.finished.valid) return `replied ${attempt.finished.status ?? '?'} in ${took} (${when}, attempt ${attempt.attempt}/${attempt.of})`;
  return `✗ attempt ${attempt.attempt}/${attempt.of} ${attempt.finished.issue ?? attempt.finished.end} (${when})`;
}

function endText(end: RunEnd, withWhy = true): string {
  if (end.type === 'done') return 'done';
  const why = end.why && withWhy ? `: ${end.why}` : '';
  return `${end.type === 'interrupted' ? 'interrupted' : 'halted'}, exit ${end.exitCode} (${end.reason ?? 'unknown reason'})${why}`;
}

/** An ISO time as `2026-11-22 10:04:05` (UTC, as in the event log). */
function stamp(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`;
}
