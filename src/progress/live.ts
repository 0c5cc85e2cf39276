import { formatDuration } from '../util/duration.js';
import type { SupervisorEvent } from '../log/events.js';
import { fitWidth, sanitizeLine, type Style } from './style.js';
import type { Reporter } from './types.js';

/** What the live reporter needs from the terminal and the clock. */
export interface LiveTerminal {
  write: (text: string) => void;
  /** The terminal's width now (it may be resized during a run). */
  columns: () => number;
  style: Style;
  now?: () => number;
  /** How often the elapsed times are redrawn. */
  tickMs?: number;
}

// Carriage return, then erase to the end of the line: the status line is redrawn in place.
const REDRAW = '\r\x1b[K';
const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
// Agents can print thousands of lines a second; the terminal needs at most ten redraws.
const MIN_REDRAW_MS = 100;
// Room the latest output line should get, at the cost of the task path.
const MIN_LATEST = 24;

/**
 * The terminal reporter: one status line redrawn in place (step, role, task, attempt,
 * elapsed times, the agent's latest output line), and one permanent line per finished
 * step or failed attempt above it.
 */
export function liveReporter(terminal: LiveTerminal): Reporter {
  const { write, style } = terminal;
  const now = terminal.now ?? (() => performance.now());
  const runStart = now();
  let step: { number: number; role: string; task: string; start: number } | null = null;
  let attempt: { role: string; number: number; of: number; start: number } | null = null;
  let latest = '';
  let shown = false;
  let lastDraw = 0;
  let frame = 0;
  let pending: NodeJS.Timeout | undefined;

  const statusLine = (): string => {
    if (!step) return '';
    const t = now();
    const width = Math.max(20, terminal.columns() - 1);
    const head = (task: string) => {
      const parts = [`${SPINNER[frame % SPINNER.length]} step ${step?.number}`, attempt?.role ?? step?.role, task];
      if (attempt) parts.push(`attempt ${attempt.number}/${attempt.of} ${clock(t - attempt.start)}`);
      parts.push(`run ${clock(t - runStart)}`);
      return parts.join(' · ');
    };
    frame++;
    let text = head(step.task);
    // A long task path gives way (keeping its end) to the clocks and the agent's latest line.
    const over = [...text].length + (latest ? 3 + MIN_LATEST : 0) - width;
    if (over > 0) text = head(shortenStart(step.task, Math.max(12, [...step.task].length - over)));
    const room = width - [...text].length - 3;
    return latest && room >= 8 ? `${text} · ${style.dim(fitWidth(latest, room))}` : fitWidth(text, width);
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
  const permanent = (line: string) => {
    write(`${REDRAW}${line}\n`);
    shown = false;
    draw();
  };
  const ticker = setInterval(draw, terminal.tickMs ?? 1000);
  ticker.unref();

  const onEvent = (event: SupervisorEvent) => {
    switch (event.type) {
      case 'step_started':
        step = { number: Number(event.step), role: String(event.role), task: String(event.task), start: now() };
        attempt = null;
        break;
      case 'attempt_started':
        attempt = { role: String(event.role), number: Number(event.attempt), of: Number(event.of), start: now() };
        latest = '';
        break;
      case 'attempt_finished': {
        const of = attempt?.of ?? '?';
        attempt = null;
        if (!event.valid) permanent(`  ${style.red('✗')} ${event.role} attempt ${event.attempt}/${of}: ${String(event.issue ?? event.end)} ${style.dim(`(${formatDuration(Number(event.durationMs))})`)}`);
        break;
      }
      case 'retry':
        permanent(`  ${style.yellow('↻')} retry ${String(event.retry)}/${String(event.maxRetries)} with the exact same inputs`);
        break;
      case 'board_written':
      case 'human_edit_kept':
      case 'halted':
      case 'interrupted': {
        const ended = step;
        step = null;
        attempt = null;
        if (!ended) break;
        const mark = event.type === 'halted' || event.type === 'interrupted' ? style.red('✗') : style.green('✓');
        permanent(`${mark} step ${ended.number} · ${ended.role} · ${ended.task}${nextOf(event)} ${style.dim(`(${formatDuration(now() - ended.start)})`)}`);
        break;
      }
      default:
        return;
    }
    draw();
  };

  return {
    event: onEvent,
    line: (text) => {
      latest = sanitizeLine(text);
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
  if (event.type === 'board_written') return ` → ${event.current === null ? 'no next task' : String(event.current)}`;
  return '';
}

function shortenStart(text: string, width: number): string {
  const chars = [...text];
  return chars.length <= width ? text : `…${chars.slice(chars.length - width + 1).join('')}`;
}

/** Elapsed time as a clock: 0:07, 12:30, 1:02:03. */
function clock(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = String(total % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}
