import type { SupervisorEvent } from '../event-types.js';
import { eventTable, type CapabilityEvents } from '../events/capability-events.js';
import { formatDuration } from '../util/duration.js';
import { cleanLine } from '../util/clean-text.js';
import { eventLine, statusMark } from './event-lines.js';
import { columnsOf, fitColumns, fitColumnsEnd } from './columns.js';
import { createStyle, type Style } from '../util/style.js';
import type { Reporter } from './reporter-type.js';

/** What the live reporter needs from the terminal and the clock. */
export interface LiveTerminal {
  write: (text: string) => void;
  /** The terminal's width now (it may be resized during a run). */
  columns: () => number;
  style: Style;
  now?: () => number;
  /** How often the elapsed times are redrawn. */
  tickMs?: number;
  /** The capabilities' event types: what each does to the live line (its events.ts). */
  events: readonly CapabilityEvents[];
}

// Carriage return, then erase to the end of the line: the status line is redrawn in place.
const REDRAW = '\r\x1b[K';
const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
// Agents can print thousands of lines a second; the terminal needs at most ten redraws.
const MIN_REDRAW_MS = 100;
// Room the latest output line should get, at the cost of the task path.
const MIN_LATEST = 24;
const PLAIN = createStyle(false);

/**
 * The terminal reporter: one status line redrawn in place (step, role, task, attempt, elapsed
 * times, the agent's latest output line), and above it one permanent line per reply, failed
 * attempt and finished step, each cut to the terminal's width in columns.
 */
export function liveReporter(terminal: LiveTerminal): Reporter {
  const { write, style, events } = terminal;
  const lives = eventTable(events).lives;
  const lineOf = (event: SupervisorEvent, colours: Style) => eventLine(event, colours, events);
  const now = terminal.now ?? (() => performance.now());
  const runStart = now();
  let step: { number: number; role: string; task: string; start: number; status?: string } | null = null;
  let attempt: { role: string; number: number; of: number; start: number } | null = null;
  let latest = '';
  let waiting: string | null = null;
  // A resident run (--watch) between passes: what it waits for.
  let resident: string | null = null;
  let shown = false;
  let lastDraw = 0;
  let frame = 0;
  let pending: NodeJS.Timeout | undefined;
  const width = () => Math.max(20, terminal.columns() - 1);

  const statusLine = (): string => {
    const t = now();
    if (!step) return resident ? fitColumns(`⏸ ${resident} · run ${clock(t - runStart)}`, width()) : '';
    if (waiting) return fitColumns(`⏸ step ${step.number} · ${waiting} · run ${clock(t - runStart)}`, width());
    const head = (task: string) => {
      const parts = [`${SPINNER[frame % SPINNER.length]} step ${step?.number}`, attempt?.role ?? step?.role, task];
      if (attempt) parts.push(`attempt ${attempt.number}/${attempt.of} ${clock(t - attempt.start)}`);
      parts.push(`run ${clock(t - runStart)}`);
      return parts.join(' · ');
    };
    frame++;
    let text = head(step.task);
    // A long task path gives way (keeping its end) to the clocks and the agent's latest line.
    const over = columnsOf(text) + (latest ? 3 + MIN_LATEST : 0) - width();
    if (over > 0) text = head(fitColumnsEnd(step.task, Math.max(12, columnsOf(step.task) - over)));
    const room = width() - columnsOf(text) - 3;
    return latest && room >= 8 ? `${text} · ${style.dim(fitColumns(latest, room))}` : fitColumns(text, width());
  };
  const draw = () => {
    clearTimeout(pending);
    pending = undefined;
    lastDraw = now();
    const line = statusLine();
    if (line) write(`${REDRAW}${line}`);
    else if (shown) write(REDRAW);
    shown = line !== '';
  };
  // Permanent lines are cut to the width before colouring, so a wrap never breaks the redraw.
  const permanent = (plain: string, coloured = plain) => {
    write(`${REDRAW}${columnsOf(plain) > width() ? fitColumns(plain, width()) : coloured}\n`);
    shown = false;
  };
  const ticker = setInterval(draw, terminal.tickMs ?? 1000);
  ticker.unref();

  const onEvent = (event: SupervisorEvent) => {
    const live = lives.get(event.type);
    if (live) {
      const change = live(event);
      if (change.waiting !== undefined) waiting = change.waiting;
      if (change.resident !== undefined) resident = change.resident;
      if (change.line) permanent(lineOf(event, PLAIN) as string, lineOf(event, style) as string);
      draw();
      return;
    }
    switch (event.type) {
      case 'step_started':
        resident = null;
        step = {
          number: event.step,
          role: cleanLine(event.role),
          task:
            event.trigger === undefined
              ? cleanLine(event.task)
              : `periodic, ${event.done_tasks ?? 0} task(s) done since its last run`,
          start: now(),
        };
        attempt = null;
        break;
      case 'attempt_started':
        waiting = null;
        attempt = {
          role: cleanLine(event.role),
          number: event.attempt,
          of: event.of,
          start: now(),
        };
        latest = '';
        break;
      case 'board_written':
      case 'human_edit_kept':
      case 'halted':
      case 'interrupted': {
        const ended = step;
        step = null;
        attempt = null;
        if (!ended) break;
        const failed = event.type === 'halted' || event.type === 'interrupted';
        const mark = failed ? style.red('✗') : statusMark(ended.status, style);
        const line = (m: string, dim: (s: string) => string) =>
          `${m} step ${ended.number} · ${ended.role} · ${ended.task}${nextOf(event)} ` +
          `${dim(`(${formatDuration(now() - ended.start)})`)}`;
        permanent(line(failed ? '✗' : statusMark(ended.status, PLAIN), PLAIN.dim), line(mark, style.dim));
        break;
      }
      case 'warning':
        permanent(lineOf(event, PLAIN) as string, lineOf(event, style) as string);
        break;
      default: {
        if (event.type === 'attempt_finished') {
          if (step && event.valid && event.done_task === undefined) step.status = event.status;
          attempt = null;
        }
        const line =
          event.type === 'attempt_finished' || event.type === 'retry' || event.type === 'handed_to_manager'
            ? lineOf(event, style)
            : null;
        if (line) permanent(lineOf(event, PLAIN) as string, line);
      }
    }
    draw();
  };

  return {
    event: onEvent,
    line: (text) => {
      latest = cleanLine(text);
      if (now() - lastDraw >= MIN_REDRAW_MS) draw();
      else pending ??= setTimeout(draw, MIN_REDRAW_MS).unref();
    },
    close: () => {
      clearInterval(ticker);
      clearTimeout(pending);
      if (shown) write(REDRAW);
      shown = false;
    },
    style,
  };
}

function nextOf(event: SupervisorEvent): string {
  if (event.type === 'human_edit_kept') return ' → your edit of the board is kept';
  if (event.type === 'board_written')
    return ` → ${event.current === null ? 'no next task' : cleanLine(`${event.current}`)}`;
  return '';
}

/** Elapsed time as a clock: 0:07, 12:30, 1:02:03. */
function clock(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = String(total % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}
