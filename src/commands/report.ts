import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { readBoard } from '../board/read.js';
import { InputError } from '../errors.js';
import { buildHistory, readEvents } from '../history/runs.js';
import { renderReport } from '../report/html.js';
import { tally } from '../report/totals.js';

/** What `report` wrote. */
export interface ReportResult {
  out: string;
  runs: number;
  attempts: number;
}

/** The default place of the page: beside the event log it is made from. */
export function defaultReportFile(boardFile: string): string {
  return path.join(path.dirname(path.resolve(boardFile)), '.kanban-supervisor', 'report.html');
}

/**
 * `kanban-supervisor report`: write a self-contained HTML page from the board's event log —
 * a timeline of every attempt per task, totals, and links to each attempt's output files.
 * Writes only the page; takes no lock, so it can run while the supervisor does.
 */
export function report(options: { file: string; out?: string; now?: Date }): ReportResult {
  const file = path.resolve(options.file);
  const board = readBoard(file);
  const runs = buildHistory(readEvents(board.dir));
  if (runs.length === 0) {
    throw new InputError(`${path.join(path.relative(process.cwd(), board.dir), '.kanban-supervisor', 'events.jsonl')}: no runs recorded yet, so there is nothing to report. Run the board first: kanban-supervisor ${options.file}`);
  }
  const out = path.resolve(options.out ?? defaultReportFile(file));
  mkdirSync(path.dirname(out), { recursive: true });
  writeFileSync(out, renderReport(runs, { file, outDir: path.dirname(out), generated: options.now ?? new Date() }));
  return { out, runs: runs.length, attempts: tally(runs.flatMap((r) => r.attempts)).attempts };
}
