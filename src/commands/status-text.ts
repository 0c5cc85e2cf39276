import path from 'node:path';
import { toRunMore } from '../board/hints.js';
import type { LastRun, LockStatus, StatusReport, TaskStatus } from './status.js';
import { OUTCOME_WORDS, type OutcomeKind } from '../errors.js';
import { LOGIN_STOP, LOGIN_STOP_WORDS } from '../login/capability.js';
import type { HistoryWindow } from '../events/latest.js';
import type { AttemptRecord, RunEnd } from '../events/records.js';
import { formatSpend } from '../spend.js';
import { figuresText, type Figures } from '../report/figures.js';
import { eventTable } from '../events/capability-events.js';
import { CAPABILITY_EVENTS } from '../run/capability-list.js';
import { formatDuration } from '../util/duration.js';
import { cleanLine, shorten } from '../util/clean-text.js';
import { localStamp } from '../util/time.js';

/**
 * `status` as a person reads it, local times, every text from the board
 * or an agent cleaned for a terminal (pure but for `now`).
 */
export function formatStatus(report: StatusReport, now: Date = new Date()): string {
  const name = path.basename(report.file);
  const phase =
    report.phase === null
      ? 'no phase'
      : `phase ${clean(report.phase)}${report.subPhase ? `/${clean(report.subPhase)}` : ''}`;
  const current =
    report.current === null ? `(none: nothing left to run. ${toRunMore(report, name)})` : clean(report.current);
  const lines = [`${name} · ${phase} · current ${current}`];
  if (report.completeWithCurrent)
    lines.push(
      `Note: phase is complete, so a run stops at once and ${clean(report.current ?? '')} is not run. ` +
        `To run it, set phase to another value (e.g. execute); if the work is done, set current to null.`,
    );
  lines.push(`Supervisor: ${lockText(report.lock, now)}`);
  const waiting = report.waiting && waitingText(report.waiting, now);
  if (waiting) lines.push(waiting);
  lines.push(`Tasks (${report.tasks.length}):`);
  const width = Math.max(4, ...report.tasks.map((t) => clean(t.task).length));
  const roleWidth = Math.max(4, ...report.tasks.map((t) => (t.role ?? '?').length));
  for (const task of report.tasks) {
    const last = task.problem
      ? `! ${clean(task.problem)}`
      : task.last
        ? attemptText(task.last, report.lastRun)
        : notFound(report.history, 'no outcome', 'not run yet');
    const title = task.title ? ` — ${shorten(clean(task.title), 50)}` : '';
    const figures = report.lastRun?.figures.byTask[task.task];
    lines.push(
      `  ${task.current ? '→' : ' '} ${clean(task.task).padEnd(width)}  ` +
        `${(task.role ?? '?').padEnd(roleWidth)}  ${last}${title}`,
    );
    if (figures && figures.modelRuns > 0)
      lines.push(`      ${' '.repeat(width)}  last run: ${taskFiguresText(figures)}`);
    if (task.parked) lines.push(`      ${' '.repeat(width)}  ⏸ ${parkedText(task.parked)}`);
  }
  const parked = report.tasks.filter((task) => task.parked);
  if (parked.length)
    lines.push(
      `Set aside for a person (${parked.length}, kanban.yaml parked:): answer in each task file, ` +
        `or remove its entry; the next run takes them first.`,
    );
  lines.push(...lastRunLines(report, now));
  if (report.lastHalt && report.lastHalt.run !== report.lastRun?.id)
    lines.push(`Last halt before it: ${localStamp(report.lastHalt.time)}: ${endText(report.lastHalt)}`);
  else if (!report.lastHalt && report.lastRun && !report.history.readAll)
    lines.push(`Last halt: ${notFound(report.history, 'none', '')}`);
  return `${lines.join('\n')}\n`;
}

function lastRunLines(report: StatusReport, now: Date): string[] {
  const run = report.lastRun;
  if (!run)
    return [
      `Last run: ` +
        `${notFound(report.history, 'none', 'none recorded (.kanban-supervisor/events.jsonl is empty or missing)')}`,
    ];
  const start = run.startNotRead
    ? `started before ${localStamp(run.start)} (${beyond(report.history)})`
    : `started ${localStamp(run.start)}`;
  const lock = report.lock;
  const ended = run.end
    ? endText(run.end)
    : lock.state === 'running' || lock.state === 'elsewhere'
      ? `still running${lock.state === 'elsewhere' ? ` ${placeOf(lock)}` : ''} ` +
        `(${formatDuration(now.getTime() - Date.parse(run.start))} so far)`
      : 'no end recorded: the supervisor was killed or crashed. ' +
        'Run again to resume; it stops what that run left first.';
  const lines = [`Last run: ${start}, ${run.steps} step(s): ${ended}`];
  // What the capabilities folded from their events (the commits, …), a line each.
  for (const line of eventTable(CAPABILITY_EVENTS).status) {
    const said = line(run);
    if (said !== undefined) lines.push(`  ${said}`);
  }
  lines.push(`  figures: ${figuresText(run.figures)}`);
  const spent = formatSpend(run.spend.total);
  if (spent) {
    const roles = Object.entries(run.spend.byRole).map(([role, total]) => `${clean(role)} ${formatSpend(total)}`);
    lines.push(`  spent: ${spent}${roles.length > 1 ? ` (${roles.join(' · ')})` : ''}`);
  }
  return lines;
}

function endText(end: RunEnd): string {
  if (end.type === 'done') return 'done';
  const words =
    end.reason === 'bad_input' && end.why?.includes(LOGIN_STOP)
      ? LOGIN_STOP_WORDS
      : end.reason !== undefined && Object.hasOwn(OUTCOME_WORDS, end.reason)
        ? OUTCOME_WORDS[end.reason as OutcomeKind].long
        : `${end.type}, exit ${end.exitCode}`;
  const why = end.why ? ` — ${shorten(clean(end.why), 400)}` : '';
  return `${words} (exit ${end.exitCode})${why}`;
}

function waitingText(waiting: NonNullable<StatusReport['waiting']>, now: Date): string {
  const until = waiting.until
    ? ` at ${localStamp(waiting.until)} (in ${formatDuration(Math.max(0, Date.parse(waiting.until) - now.getTime()))})`
    : '';
  const since = `since ${localStamp(waiting.since)}`;
  const reason = shorten(clean(waiting.reason), 300);
  const cli = clean(waiting.cli ?? 'an agent');
  // Another supervisor's entry: where it came from, and how to be rid of it (SPEC §5c).
  const learnt =
    waiting.learntFrom === undefined
      ? undefined
      : `Learnt from the supervisor of ${clean(waiting.learntFrom)} at ` +
        `${localStamp(waiting.learntAt ?? waiting.since)}, ` +
        `in ${clean(waiting.sharedFile ?? '?')}: if the account is no longer limited, remove that file` +
        `${waiting.active ? ' and start this run again' : ''}.`;
  if (!waiting.active) {
    if (learnt) return `Usage limit: ${cli}'s, until${until}; a run looks again before calling it. ${learnt}`;
    return waiting.until
      ? `Usage limit: the last run stopped for ${cli}'s usage limit, which resets ${until.trim()}; ` +
          `a run started before then waits for it. The CLI said: ${reason}`
      : '';
  }
  if (waiting.for === 'usage_limit')
    return (
      `Waiting: for ${cli}'s usage limit to reset${until}, ${since} ` +
      `(${clean(waiting.role ?? '')} on ${clean(waiting.task ?? '')}). ${learnt ?? `The CLI said: ${reason}`}`
    );
  const invalid = waiting.invalid ? ` Your last edit does not validate yet: ${clean(waiting.invalid)}` : '';
  return (
    `Waiting: resident (--watch) ${since}, for an edit of kanban.yaml, ` +
    `a task or a role file${until ? `, or the usage limit's reset${until}` : ''}; ` +
    `it would have ended: ${reason}.${invalid}`
  );
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
  const [value, unit] =
    bytes >= 2 ** 20 ? [bytes / 2 ** 20, 'MiB'] : bytes >= 1024 ? [bytes / 1024, 'KiB'] : [bytes, 'bytes'];
  return `${value >= 10 || Number.isInteger(value) ? Math.round(value) : value.toFixed(1)} ${unit}`;
}

function lockText(lock: LockStatus, now: Date): string {
  switch (lock.state) {
    case 'free':
      return 'none running (the board is not locked)';
    case 'running':
      return (
        `running: pid ${lock.pid} since ${localStamp(lock.since)} ` +
        `(${formatDuration(now.getTime() - Date.parse(lock.since))})`
      );
    case 'elsewhere':
      return (
        `running ${placeOf(lock)}: pid ${lock.pid} there, on ${clean(lock.host)}, since ${localStamp(lock.since)} ` +
        `(${formatDuration(now.getTime() - Date.parse(lock.since))}); its process cannot be seen from here, ` +
        `but it refreshed its lock ${formatDuration(lock.refreshedMs)} ago`
      );
    case 'stale':
      return lock.silentMs === undefined
        ? `none running: pid ${lock.pid} (since ${localStamp(lock.since)}) is gone and left its lock; ` +
            'the next run takes it over'
        : `none running: pid ${lock.pid} on ${clean(lock.host)} (another container or host, since ` +
            `${localStamp(lock.since)}) has not refreshed its lock for ${formatDuration(lock.silentMs)}, ` +
            'so it is gone; the next run takes it over';
    default:
      return 'the board is locked but the owner is not recorded';
  }
}

function placeOf(lock: { where: 'container' | 'host' }): string {
  return lock.where === 'container' ? 'in another container' : 'on another host';
}

// Steps are numbered per run: an attempt says which run it was in.
function attemptText(attempt: AttemptRecord, lastRun: LastRun | undefined): string {
  const run = attempt.run === lastRun?.id ? 'last run' : `run of ${localStamp(attempt.start).slice(0, 16)}`;
  const when = `step ${attempt.step} of the ${run}${attempt.agent ? `, by fallback ${clean(attempt.agent)}` : ''}`;
  if (!attempt.finished) return `attempt ${attempt.attempt}/${attempt.of} started, no end recorded (${when})`;
  const took = formatDuration(attempt.finished.durationMs);
  if (attempt.finished.valid) {
    const said = attempt.finished.message ? `: ${shorten(clean(attempt.finished.message), 80)}` : '';
    return (
      `${mark(attempt.finished.status)} replied ${clean(attempt.finished.status ?? '?')}` + `${said} (${took}, ${when})`
    );
  }
  return (
    `✗ attempt ${attempt.attempt}/${attempt.of} ` +
    `${shorten(clean(attempt.finished.issue ?? attempt.finished.end), 200)} (${when})`
  );
}

function mark(status: string | undefined): string {
  return status === 'ok' ? '✓' : status === 'blocked' ? '⊘' : status === 'escalate' ? '⚑' : '✗';
}

function taskFiguresText(figures: Figures): string {
  const spent = formatSpend(figures.spend);
  return [
    `${figures.modelRuns} model run(s)`,
    `${figures.retries} retr${figures.retries === 1 ? 'y' : 'ies'}`,
    ...(spent ? [spent] : []),
    ...(figures.limitWaitMs > 0 ? [`${formatDuration(figures.limitWaitMs)} waiting for usage limits`] : []),
  ].join(' · ');
}

function parkedText(entry: NonNullable<TaskStatus['parked']>): string {
  const asked = entry.asked ? ', a person was asked' : '';
  return `set aside by the Manager${asked}: ${shorten(clean(entry.question), 300)}`;
}

const clean = cleanLine;
