import { formatSpend } from '../spend.js';
import { cleanLine, shorten } from '../util/clean-text.js';
import { localStamp } from '../util/time.js';
import { esc, kind, result, type Linker } from './attempt-row.js';
import { COLUMNS, type BoardCard, type Column } from './board-view.js';

const HEADINGS: Record<Column, string> = {
  todo: 'To do',
  current: 'Current',
  blocked: 'Blocked / set aside',
  done: 'Done',
};

/**
 * The board as a kanban view: a column per place a task can be in, each card with its role,
 * title, last outcome, attempts, spend, and links to its work log (the task file) and its last
 * output. Every text from the board, a task file or an agent is escaped (pure).
 */
export function* kanban(cards: readonly BoardCard[], link: Linker, where: string): Generator<string> {
  yield `<section id="board">
<h2>Board</h2>
<div class="muted">${esc(where)}</div>
<div class="columns">
`;
  for (const column of COLUMNS) {
    const inColumn = cards.filter((card) => card.column === column);
    const heading = `${HEADINGS[column]} <span class="count">${inColumn.length}</span>`;
    yield `<div class="column" data-column="${column}"><h3>${heading}</h3><ol>\n`;
    for (const card of inColumn) yield `${cardHtml(card, link)}\n`;
    yield '</ol></div>\n';
  }
  yield '</div>\n</section>\n';
}

function cardHtml(card: BoardCard, link: Linker): string {
  const tags = [card.current && 'current', card.running && 'running', card.parked && 'set aside'].filter(
    Boolean,
  ) as string[];
  const tagged = tags.map((t) => `<span class="tag ${t.replace(' ', '-')}">${t}</span>`).join('');
  const head = `<div class="card-head"><span class="role">${esc(card.role ?? '?')}</span>${tagged}</div>`;
  const title = card.title ? shorten(cleanLine(card.title), 120) : card.task;
  const said = (cls: string, text: string) => `<div class="outcome ${cls}" title="${esc(text)}">${esc(text)}</div>`;
  const outcome = card.problem
    ? said('invalid', shorten(cleanLine(card.problem), 300))
    : card.last
      ? said(kind(card.last), card.running && !card.last.finished ? 'running' : result(card.last))
      : said('muted', 'no attempt in these runs');
  const escalated = card.escalated ? said(`${kind(card.escalated)} manager`, `Manager: ${result(card.escalated)}`) : '';
  const output = card.last?.finished?.stdoutFile ?? card.last?.finished?.stderrFile;
  const facts = [
    `${card.attempts} attempt(s)`,
    card.last ? `<span title="when its last attempt started">${esc(localStamp(card.last.start))}</span>` : '',
    card.figures?.modelRuns ? `${card.figures.modelRuns} model run(s)` : '',
    card.figures?.retries ? `${card.figures.retries} retr${card.figures.retries === 1 ? 'y' : 'ies'}` : '',
    card.spend.priced ? esc(formatSpend(card.spend)) : '',
    `<a class="work-log" href="${esc(link(card.task))}">work log</a>`,
    output ? `<a class="last-output" href="${esc(link(output))}">last output</a>` : '',
  ].filter(Boolean);
  // Why it is in its column, unless the outcome says it already (a task never run).
  const because = card.last || card.column !== 'todo' ? `<div class="because muted">${esc(card.because)}</div>` : '';
  const named = `<div class="card-title">${esc(title)}</div><div class="path muted">${esc(card.task)}</div>`;
  const body = `${head}${named}${outcome}${escalated}<div class="facts">${facts.join(' · ')}</div>${because}`;
  return `<li class="card ${card.column}" data-task="${esc(card.task)}">${body}</li>`;
}
