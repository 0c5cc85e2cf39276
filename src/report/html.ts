import path from 'node:path';
import { formatDuration } from '../util/duration.js';
import { ranBy, timedOut, type AttemptRecord } from '../events/records.js';
import { formatSpend } from '../spend.js';
import { cleanLine } from '../util/clean-text.js';
import { localStamp } from '../util/time.js';
import { attemptId, attemptRow, esc, kind, laneOf, result, type Linker } from './attempt-row.js';
import type { RunRecord } from '../events/fold.js';
import { eventTable, type CapabilityEvents } from '../events/capability-events.js';
import { PAGE_STYLE } from './page-style.js';
import { runSpanMs, totals, type Tally } from './totals.js';
import { addAttempt, emptyFigures, figuresText, perCompleted, runFigures } from './figures.js';
import type { BoardCard } from './board-view.js';
import { kanban } from './kanban-html.js';
import { LIVE_SCRIPT, STATIC_POLICY } from './live-page.js';

// How the cards are placed, as the page says it under the board.
const BOARD_NOTE =
  "Columns from kanban.yaml (current, phase), each task file's front-matter status: and its last outcome " +
  'in the runs below; attempts and spend are counted over those runs.';

/** What the page needs besides the history: where it is written, to link the attempts' log files. */
export interface PageContext {
  /** kanban.yaml, absolute. */
  file: string;
  /** The folder the page is written to: log links are relative to it. */
  outDir: string;
  generated: Date;
  /** Older runs than those given are in the history but left out of the page. */
  olderLeftOut?: boolean;
  /** The event types the capabilities add: each adds to a run's head line what it folded (the commits, …). */
  capabilityEvents: readonly CapabilityEvents[];
  /** Task titles from the task files, where they have one. */
  titles?: ReadonlyMap<string, string>;
  /** The board's tasks as cards: the kanban view the page opens with. */
  board?: readonly BoardCard[];
  /** Where the page links a board file (default: a path relative to `outDir`). */
  link?: Linker;
  /** A page served live (report --watch): its version, which the page's script compares with the server's. */
  live?: { version: string };
}

/**
 * The report: one self-contained HTML page (inline style, no external asset, no script but the
 * live page's constant one) — the board as a kanban view, then the run log — in pieces to write
 * one after the other, so a page of any size is never one string (pure).
 */
export function* renderReport(runs: RunRecord[], context: PageContext): Generator<string> {
  const name = path.basename(context.file);
  const sum = totals(runs);
  const link = context.link ?? linker(context);
  const cards: Array<[string, string]> = [
    ['runs', String(sum.runs)],
    ['steps', String(sum.steps)],
    ['attempts', String(sum.all.attempts)],
    ['valid replies', String(sum.all.valid)],
    ['retries', String(sum.all.retries)],
    ['timeouts', String(sum.all.timeouts)],
    ['agent time', formatDuration(sum.all.agentMs)],
    ['wall time', formatDuration(sum.wallMs)],
    ...(sum.all.spend.priced ? [['spent', formatSpend(sum.all.spend)] as [string, string]] : []),
    ...morningCards(runs),
  ];
  const scope = context.olderLeftOut
    ? ` · the last ${runs.length} runs; older runs are left out (kanban-supervisor report --all shows every run)`
    : '';
  const version = context.live ? ` data-version="${esc(context.live.version)}"` : '';
  const policy = context.live ? '' : `\n<meta http-equiv="Content-Security-Policy" content="${STATIC_POLICY}">`;
  yield (
    `<!doctype html>
<html lang="en"${version}>
<head>
<meta charset="utf-8">${policy}
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>Board and runs · ${esc(name)}</title>
<style>${PAGE_STYLE}</style>
</head>
<body>
<header>
<h1>Board and runs · ${esc(name)}${context.live ? ' <span class="badge live">live</span>' : ''}</h1>
<div class="muted">${esc(context.file)} · generated ${esc(localStamp(context.generated))} (local time) ` +
    `from .kanban-supervisor/events.jsonl, newest run first${esc(scope)}</div>
</header>
`
  );
  if (context.board) yield* kanban(context.board, link, BOARD_NOTE);
  if (context.live) yield `<script>${LIVE_SCRIPT}</script>\n`;
  if (runs.length === 0) {
    const none = 'No runs recorded yet: the page shows the first one as it starts.';
    yield `<section id="runs"><h2>Runs</h2><p class="muted">${none}</p></section>\n</body>\n</html>\n`;
    return;
  }
  yield (
    `<section id="totals">
<h2>Totals</h2>
<ul class="cards">${cards.map(([label, value]) => `<li><b>${esc(value)}</b>${esc(label)}</li>`).join('')}</ul>
<table id="roles"><thead><tr><th>role</th><th class="num">attempts</th><th class="num">valid</th>` +
    `<th class="num">retries</th><th class="num">timeouts</th><th class="num">agent time</th>` +
    `<th class="num">spent</th></tr></thead><tbody>
${sum.byRole.map((r) => `<tr><td>${esc(r.role)}</td>${tallyCells(r)}</tr>`).join('\n')}
</tbody></table>
<ul class="legend"><li><i style="background:var(--ok)"></i>replied ok</li>` +
    `<li><i style="background:var(--attention)"></i>replied blocked or escalate</li>` +
    `<li><i style="background:var(--error)"></i>replied error</li>` +
    `<li><i style="background:var(--manager)"></i>Manager's reply</li>` +
    `<li><i style="background:var(--bad)"></i>invalid output</li><li><i class="hatch"></i>timed out</li>` +
    `<li><i style="background:var(--unfinished)"></i>no end recorded</li>` +
    `<li><i style="outline:2px solid #212529;outline-offset:-2px;background:#fff"></i>retry (↻n)</li></ul>
</section>
`
  );
  const newestFirst = [...runs].reverse();
  for (const run of newestFirst) yield* timeline(run, link, context.capabilityEvents, context.titles);
  yield (
    `<section id="attempts">
<h2>Every attempt</h2>
<table><thead><tr><th>run</th><th>step</th><th>task</th><th>role</th><th>attempt</th><th>started</th>` +
    `<th>duration</th><th>spent</th><th>result</th><th>logs</th></tr></thead><tbody>
`
  );
  for (const run of newestFirst) for (const a of run.attempts) yield `${attemptRow(a, link)}\n`;
  yield `</tbody></table>
</section>
</body>
</html>
`;
}

// The morning figures over the runs shown: what a completed task cost, and the time limits took.
function morningCards(runs: readonly RunRecord[]): Array<[string, string]> {
  const all = emptyFigures();
  for (const run of runs) {
    for (const attempt of run.attempts) addAttempt(all, attempt);
    all.limitWaitMs += run.limitWaitMs ?? 0;
  }
  const each = perCompleted(all);
  const spent = each && formatSpend(each);
  return [
    ['tasks completed', String(all.completed)],
    ['model runs', String(all.modelRuns)],
    ...(each && all.modelRuns > 0
      ? [['model runs a completed task', each.modelRuns.toFixed(2)] as [string, string]]
      : []),
    ...(spent ? [['a completed task', spent] as [string, string]] : []),
    ['waiting for usage limits', all.limitWaitMs > 0 ? formatDuration(all.limitWaitMs) : 'none'],
  ];
}

function* timeline(
  run: RunRecord,
  link: Linker,
  capabilityEvents: readonly CapabilityEvents[],
  titles: ReadonlyMap<string, string> = new Map(),
): Generator<string> {
  const start = Date.parse(run.start);
  const span = Math.max(1, runSpanMs(run));
  const outcome = run.end
    ? run.end.type === 'done'
      ? 'done'
      : `${run.end.type}, exit ${run.end.exitCode}`
    : 'no end recorded';
  const why = run.end?.why ? `<div class="muted">${esc(cleanLine(run.end.why))}</div>` : '';
  // What the capabilities folded from their events (the commits, …), each ` · …`.
  const added = eventTable(capabilityEvents)
    .report.map((part) => part(run))
    .join('');
  yield (
    `<section class="run" data-run="${esc(run.id)}">
<h2>Run ${esc(run.id)} <span class="badge ${esc(run.end?.type ?? 'unfinished')}">${esc(outcome)}</span></h2>
<div class="muted">started ${esc(localStamp(run.start))} · ${run.steps} step(s) · ` +
    `${esc(formatDuration(span))}${added}</div>${why}
<div class="figures">${esc(figuresText(runFigures(run)))}</div>
<div class="axis"><span>0s</span><span>${esc(formatDuration(span / 2))}</span>` +
    `<span>${esc(formatDuration(span))}</span></div>
`
  );
  for (const [lane, attempts] of byLane(run.attempts)) {
    const title = titles.get(lane);
    const label = title ? `${lane} — ${cleanLine(title)}` : lane;
    yield (
      `<div class="lane" data-task="${esc(lane)}"><div class="label" title="${esc(label)}">${esc(label)}` +
      `</div><div class="track">`
    );
    for (const a of attempts) yield bar(a, start, span, run, link);
    yield '</div></div>\n';
  }
  yield '</section>\n';
}

// One lane per task (and per periodic role), in the order they first appear: one pass, however many.
function byLane(attempts: AttemptRecord[]): Map<string, AttemptRecord[]> {
  const lanes = new Map<string, AttemptRecord[]>();
  for (const a of attempts) {
    const lane = lanes.get(laneOf(a));
    if (lane) lane.push(a);
    else lanes.set(laneOf(a), [a]);
  }
  return lanes;
}

function bar(a: AttemptRecord, start: number, span: number, run: RunRecord, link: Linker): string {
  const from = Date.parse(a.start) - start;
  const duration = a.finished ? a.finished.durationMs : Date.parse(run.last) - Date.parse(a.start);
  const left = clamp((from / span) * 100);
  const width = Math.min(100 - left, Math.max(0.3, (duration / span) * 100));
  const classes = ['bar', kind(a), a.manager ? 'manager' : 'worker', a.attempt > 1 ? 'retry' : '']
    .filter(Boolean)
    .join(' ');
  const label = `${a.attempt > 1 ? `↻${a.attempt - 1} ` : ''}${timedOut(a) ? 'timeout · ' : ''}${ranBy(a)}`;
  const title =
    `${ranBy(a)} · step ${a.step} · attempt ${a.attempt}/${a.of} · ` +
    `${formatDuration(Math.max(0, duration))} · ${result(a)}`;
  const href = a.finished?.stdoutFile ? ` href="${esc(link(a.finished.stdoutFile))}"` : '';
  return (
    `<a class="${classes}" data-attempt="${esc(attemptId(a))}"${href} ` +
    `style="left:${left.toFixed(3)}%;width:${width.toFixed(3)}%" title="${esc(title)}">${esc(label)}</a>`
  );
}

function tallyCells(t: Tally): string {
  return (
    [t.attempts, t.valid, t.retries, t.timeouts].map((n) => `<td class="num">${n}</td>`).join('') +
    `<td class="num">${esc(formatDuration(t.agentMs))}</td><td class="num">${esc(formatSpend(t.spend) || '—')}</td>`
  );
}

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
      way = path
        .relative(context.outDir, path.join(boardDir, folder))
        .split(path.sep)
        .map(encodeURIComponent)
        .join('/');
      folders.set(folder, way);
    }
    const name = encodeURIComponent(path.basename(boardRelative));
    return way ? `${way}/${name}` : name;
  };
}

function clamp(percent: number): number {
  return Math.min(100, Math.max(0, percent));
}
