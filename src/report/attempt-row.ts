import { ranBy, timedOut, type AttemptRecord } from '../events/records.js';
import { addUsage, emptySpend, formatSpend } from '../spend.js';
import { formatDuration } from '../util/duration.js';
import { cleanLine, shorten } from '../util/clean-text.js';
import { localStamp } from '../util/time.js';

/** Turns a board-relative log path into a link from the page. */
export type Linker = (boardRelative: string) => string;

/** A row of the "Every attempt" table: when, who, how it ended, what it said, what it spent, its logs. */
export function attemptRow(a: AttemptRecord, link: Linker): string {
  const logs = [
    a.finished?.stdoutFile && `<a href="${esc(link(a.finished.stdoutFile))}">stdout</a>`,
    a.finished?.stderrFile && `<a href="${esc(link(a.finished.stderrFile))}">stderr</a>`,
  ]
    .filter(Boolean)
    .join(' · ');
  const cells = [
    a.run,
    String(a.step),
    laneOf(a),
    ranBy(a),
    `${a.attempt}/${a.of}${a.attempt > 1 ? ' ↻' : ''}`,
    localStamp(a.start),
    a.finished ? formatDuration(a.finished.durationMs) : '—',
    spentBy(a) || '—',
  ];
  return (
    `<tr class="${kind(a)}" data-attempt-row="${esc(attemptId(a))}">` +
    `${cells.map((c) => `<td>${esc(c)}</td>`).join('')}<td class="result">${esc(result(a))}</td>` +
    `<td>${logs || '—'}</td></tr>`
  );
}

/** The timeline lane an attempt goes in: its task's, or its periodic role's. */
export function laneOf(a: AttemptRecord): string {
  return a.trigger ? `periodic: ${a.trigger}` : a.task;
}

/** The classes saying how an attempt ended: a valid reply also by its status (ok, blocked, error, escalate). */
export function kind(a: AttemptRecord): string {
  if (!a.finished) return 'unfinished';
  if (timedOut(a)) return 'timeout';
  if (!a.finished.valid) return 'invalid';
  return `valid status-${/^(ok|blocked|error|escalate)$/.test(a.finished.status ?? '') ? a.finished.status : 'other'}`;
}

/** How an attempt ended, in words: its reply's status and message start, or why it gave none. */
export function result(a: AttemptRecord): string {
  if (!a.finished) return 'no end recorded';
  if (a.finished.valid)
    return (
      `replied ${cleanLine(a.finished.status ?? '')}` +
      `${a.finished.message ? `: ${shorten(cleanLine(a.finished.message), 200)}` : ''}`
    );
  return cleanLine(a.finished.issue ?? a.finished.end);
}

/** A stable id for an attempt, unique within the report. */
export function attemptId(a: AttemptRecord): string {
  return `${a.run}/${a.step}/${a.manager ? 'manager' : a.trigger ? `periodic-${a.trigger}` : 'worker'}/${a.attempt}`;
}

function spentBy(a: AttemptRecord): string {
  const spent = emptySpend();
  addUsage(spent, a.finished?.usage);
  return formatSpend(spent);
}

/** Text made safe in HTML. */
export function esc(text: string): string {
  return /[&<>"']/.test(text) ? text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`) : text;
}
