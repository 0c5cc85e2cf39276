import path from 'node:path';
import { formatDuration } from '../util/duration.js';
import { timedOut, type AttemptRecord } from '../history/records.js';
import type { RunRecord } from '../history/runs.js';
import { PAGE_STYLE } from './page-style.js';
import { runSpanMs, totals, type Tally } from './totals.js';

/** What the page needs besides the history: where it is written, to link the attempts' log files. */
export interface PageContext {
  /** kanban.yaml, absolute. */
  file: string;
  /** The folder the page is written to: log links are relative to it. */
  outDir: string;
  generated: Date;
  /** Older runs than those given are in the history but left out of the page. */
  olderLeftOut?: boolean;
}

/**
 * The run report: one self-contained HTML page (inline style, no script, no external asset),
 * in pieces to write one after the other, so a page of any size is never one string (pure).
 */
export function* renderReport(runs: RunRecord[], context: PageContext): Generator<string> {
  const name = path.basename(context.file);
  const sum = totals(runs);
  const link = linker(context);
  const cards: Array<[string, string]> = [
    ['runs', String(sum.runs)],
    ['steps', String(sum.steps)],
    ['attempts', String(sum.all.attempts)],
    ['valid replies', String(sum.all.valid)],
    ['retries', String(sum.all.retries)],
    ['timeouts', String(sum.all.timeouts)],
    ['agent time', formatDuration(sum.all.agentMs)],
    ['wall time', formatDuration(sum.wallMs)],
  ];
  const scope = context.olderLeftOut ? ` · the last ${runs.length} runs; older runs are left out (kanban-supervisor report --all shows every run)` : '';
  yield `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>Run report · ${esc(name)}</title>
<style>${PAGE_STYLE}</style>
</head>
<body>
<header>
<h1>Run report · ${esc(name)}</h1>
<div class="muted">${esc(context.file)} · generated ${esc(stamp(context.generated.toISOString()))} from .kanban-supervisor/events.jsonl${esc(scope)}</div>
</header>
<section id="totals">
<h2>Totals</h2>
<ul class="cards">${cards.map(([label, value]) => `<li><b>${esc(value)}</b>${esc(label)}</li>`).join('')}</ul>
<table id="roles"><thead><tr><th>role</th><th class="num">attempts</th><th class="num">valid</th><th class="num">retries</th><th class="num">timeouts</th><th class="num">agent time</th></tr></thead><tbody>
${sum.byRole.map((r) => `<tr><td>${esc(r.role)}</td>${tallyCells(r)}</tr>`).join('\n')}
</tbody></table>
<ul class="legend"><li><i style="background:var(--ok)"></i>valid reply</li><li><i style="background:var(--manager)"></i>Manager's valid reply</li><li><i style="background:var(--bad)"></i>invalid output</li><li><i class="hatch"></i>timed out</li><li><i style="background:var(--unfinished)"></i>no end recorded</li><li><i style="outline:2px solid #212529;outline-offset:-2px;background:#fff"></i>retry (↻n)</li></ul>
</section>
`;
  for (const run of runs) yield* timeline(run, link);
  yield `<section id="attempts">
<h2>Every attempt</h2>
<table><thead><tr><th>run</th><th>step</th><th>task</th><th>role</th><th>attempt</th><th>started</th><th>duration</th><th>result</th><th>logs</th></tr></thead><tbody>
`;
  for (const run of runs) for (const a of run.attempts) yield `${attemptRow(a, link)}\n`;
  yield `</tbody></table>
</section>
</body>
</html>
`;
}

function* timeline(run: RunRecord, link: Linker): Generator<string> {
  const start = Date.parse(run.start);
  const span = Math.max(1, runSpanMs(run));
  const outcome = run.end ? (run.end.type === 'done' ? 'done' : `${run.end.type}, exit ${run.end.exitCode}`) : 'no end recorded';
  const why = run.end?.why ? `<div class="muted">${esc(run.end.why)}</div>` : '';
  yield `<section class="run" data-run="${esc(run.id)}">
<h2>Run ${esc(run.id)} <span class="badge ${esc(run.end?.type ?? 'unfinished')}">${esc(outcome)}</span></h2>
<div class="muted">started ${esc(stamp(run.start))} · ${run.steps} step(s) · ${esc(formatDuration(span))}</div>${why}
<div class="axis"><span>0s</span><span>${esc(formatDuration(span / 2))}</span><span>${esc(formatDuration(span))}</span></div>
`;
  for (const [task, attempts] of byTask(run.attempts)) {
    yield `<div class="lane" data-task="${esc(task)}"><div class="label" title="${esc(task)}">${esc(task)}</div><div class="track">`;
    for (const a of attempts) yield bar(a, start, span, run, link);
    yield '</div></div>\n';
  }
  yield '</section>\n';
}

// One lane per task, in the order tasks first appear: one pass, however many tasks and attempts.
function byTask(attempts: AttemptRecord[]): Map<string, AttemptRecord[]> {
  const lanes = new Map<string, AttemptRecord[]>();
  for (const a of attempts) {
    const lane = lanes.get(a.task);
    if (lane) lane.push(a);
    else lanes.set(a.task, [a]);
  }
  return lanes;
}

function bar(a: AttemptRecord, start: number, span: number, run: RunRecord, link: Linker): string {
  const from = Date.parse(a.start) - start;
  const duration = a.finished ? a.finished.durationMs : Date.parse(run.last) - Date.parse(a.start);
  const left = clamp((from / span) * 100);
  const width = Math.min(100 - left, Math.max(0.3, (duration / span) * 100));
  const classes = ['bar', kind(a), a.manager ? 'manager' : 'worker', a.attempt > 1 ? 'retry' : ''].filter(Boolean).join(' ');
  const label = `${a.attempt > 1 ? `↻${a.attempt - 1} ` : ''}${timedOut(a) ? 'timeout · ' : ''}${a.role}`;
  const title = `${a.role} · step ${a.step} · attempt ${a.attempt}/${a.of} · ${formatDuration(Math.max(0, duration))} · ${result(a)}`;
  const href = a.finished?.stdoutFile ? ` href="${esc(link(a.finished.stdoutFile))}"` : '';
  return `<a class="${classes}" data-attempt="${esc(attemptId(a))}"${href} style="left:${left.toFixed(3)}%;width:${width.toFixed(3)}%" title="${esc(title)}">${esc(label)}</a>`;
}

function attemptRow(a: AttemptRecord, link: Linker): string {
  const logs = [a.finished?.stdoutFile && `<a href="${esc(link(a.finished.stdoutFile))}">stdout</a>`, a.finished?.stderrFile && `<a href="${esc(link(a.finished.stderrFile))}">stderr</a>`].filter(Boolean).join(' · ');
  const cells = [a.run, String(a.step), a.task, a.role, `${a.attempt}/${a.of}${a.attempt > 1 ? ' ↻' : ''}`, stamp(a.start), a.finished ? formatDuration(a.finished.durationMs) : '—'];
  return `<tr class="${kind(a)}" data-attempt-row="${esc(attemptId(a))}">${cells.map((c) => `<td>${esc(c)}</td>`).join('')}<td class="result">${esc(result(a))}</td><td>${logs || '—'}</td></tr>`;
}

function tallyCells(t: Tally): string {
  return [t.attempts, t.valid, t.retries, t.timeouts].map((n) => `<td class="num">${n}</td>`).join('') + `<td class="num">${esc(formatDuration(t.agentMs))}</td>`;
}

function kind(a: AttemptRecord): string {
  if (!a.finished) return 'unfinished';
  if (timedOut(a)) return 'timeout';
  return a.finished.valid ? 'valid' : 'invalid';
}

function result(a: AttemptRecord): string {
  if (!a.finished) return 'no end recorded';
  if (a.finished.valid) return `replied ${a.finished.status ?? ''}`.trim();
  return a.finished.issue ?? a.finished.end;
}

/** A stable id for an attempt, unique within the report. */
function attemptId(a: AttemptRecord): string {
  return `${a.run}/${a.step}/${a.manager ? 'manager' : 'worker'}/${a.attempt}`;
}

/** Turns a board-relative log path into a link from the page. */
type Linker = (boardRelative: string) => string;

// Event log paths are relative to the board folder; the page may be written anywhere. An
// attempt's files share a folder: its way from the page is worked out once per folder, not
// once per link (a long history has a million links).
function linker(context: PageContext): Linker {
  const boardDir = path.dirname(context.file);
  const folders = new Map<string, string>();
  return (boardRelative) => {
    const folder = path.dirname(boardRelative);
    let way = folders.get(folder);
    if (way === undefined) {
      way = path.relative(context.outDir, path.join(boardDir, folder)).split(path.sep).map(encodeURIComponent).join('/');
      folders.set(folder, way);
    }
    const name = encodeURIComponent(path.basename(boardRelative));
    return way ? `${way}/${name}` : name;
  };
}

function clamp(percent: number): number {
  return Math.min(100, Math.max(0, percent));
}

function stamp(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`;
}

function esc(text: string): string {
  return /[&<>"']/.test(text) ? text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`) : text;
}
