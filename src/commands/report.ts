import { emptyFigures, perCompleted, runFigures, taskFigures } from '../report/figures.js';
import { boardParked } from '../board/parked.js';
import { mkdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { readBoard } from '../board/read-board.js';
import { boardSecrets } from '../board/secret-values.js';
import { maskDeep } from '../util/secrets.js';
import { runnable } from '../util/self-command.js';
import { InputError, SupervisorError, UnwritableError } from '../errors.js';
import { readRecentRuns, REPORT_RUNS } from '../events/recent-runs.js';
import { CAPABILITY_EVENTS } from '../run/capability-list.js';
import { EVENTS } from '../event-types.js';
import { renderReport } from '../report/html.js';
import { readTaskMeta } from '../board/task.js';
import { boardCards, type BoardCard } from '../report/board-view.js';
import { boardTasks, lockStatus, readTaskFacts } from './status.js';
import type { RunRecord } from '../events/fold.js';
import { writePageInBoard, writePageThrough } from '../report/write-page.js';
import { carryingLinker } from '../report/carry-files.js';

/** What `report` wrote. */
export interface ReportResult {
  out: string;
  runs: number;
  attempts: number;
  /** Older runs are in the history but not on the page (without --all). */
  olderLeftOut: boolean;
  /** The folder beside a page written outside the board, holding copies of what it links. */
  carried?: string;
}

/** Which runs to put on the page: the last `runs` (default REPORT_RUNS), or every one with `all`. */
export interface ReportOptions {
  file: string;
  out?: string;
  now?: Date;
  runs?: number;
  all?: boolean;
  /** Whose secret values are masked (board/secret-values.ts); process.env by default. */
  env?: NodeJS.ProcessEnv;
}

const WRITE_FIXES: Record<string, string> = {
  EISDIR: 'It is a folder: name a file with --out FILE.',
  ENOSPC: 'Free some disk space, or write it elsewhere with --out FILE.',
  EACCES: "Fix the folder's permissions, or write it elsewhere with --out FILE.",
  EROFS: 'The file system is read-only: write it elsewhere with --out FILE.',
};

/** The runs asked for on the command line (`--runs N`, `--all`), checked. */
export function reportScope(runs: unknown, all: unknown): { runs?: number; all?: boolean } {
  if (runs === undefined) return all === true ? { all: true } : {};
  if (all === true)
    throw new InputError(
      '--runs and --all ask for different runs: pass one of them. See `kanban-supervisor report --help`.',
    );
  const n = Number(runs);
  if (!/^\d+$/.test(String(runs)) || !Number.isSafeInteger(n) || n < 1)
    throw new InputError(
      `--runs must be a whole number of runs, 1 or more (got ${JSON.stringify(runs)}). For every run, pass --all.`,
    );
  return { runs: n };
}

/** What a page is made of: the runs, the board's cards and the tasks' titles. */
export interface PageParts {
  /** The board folder (its real path). */
  dir: string;
  runs: RunRecord[];
  olderLeftOut: boolean;
  board: BoardCard[];
  titles: Map<string, string>;
}

/**
 * Read what the page shows: the board and its task files (the cards), the last runs of the event
 * log, and whether a run is going on (the lock is held). Reads only.
 */
export function readPageParts(
  file: string,
  scope: { runs?: number; all?: boolean },
  env: NodeJS.ProcessEnv = process.env,
): PageParts {
  const board = readBoard(file);
  const facts = readTaskFacts(board, boardTasks(board));
  const recent = readRecentRuns(board.dir, scope.all ? Infinity : (scope.runs ?? REPORT_RUNS), CAPABILITY_EVENTS);
  // Events are masked as they are written; a secret added to a role or the environment since is masked here.
  const secrets = boardSecrets(board.dir, env);
  const runs = maskDeep(recent?.runs ?? [], secrets);
  const last = runs.at(-1);
  const lock = lockStatus(board.file).state;
  const liveRun = last && !last.end && (lock === 'running' || lock === 'elsewhere') ? last.id : undefined;
  const titles = new Map(facts.flatMap((f) => (f.title === undefined ? [] : [[f.task, f.title] as const])));
  return {
    dir: board.dir,
    runs,
    olderLeftOut: recent?.olderLeftOut ?? false,
    board: maskDeep(
      withFigures(boardCards({ ...board, parked: boardParked(board.doc) }, facts, runs, liveRun), runs),
      secrets,
    ),
    titles: titlesOf(board.dir, runs, titles),
  };
}

// Each card with its task's morning figures over the runs read.
function withFigures(cards: BoardCard[], runs: RunRecord[]): BoardCard[] {
  const byTask = taskFigures(runs);
  return cards.map((card) => ({ ...card, figures: byTask.get(card.task) ?? emptyFigures() }));
}

/**
 * What `report --json` prints: the board's cards with their figures, and each run's figures (SPEC: the morning read).
 */
export function reportJson(file: string, scope: { runs?: number; all?: boolean }, env?: NodeJS.ProcessEnv): object {
  const parts = readPageParts(path.resolve(file), scope, env);
  return {
    file: path.resolve(file),
    olderLeftOut: parts.olderLeftOut,
    board: parts.board,
    runs: parts.runs.map((run) => {
      const figures = runFigures(run);
      return {
        id: run.id,
        start: run.start,
        last: run.last,
        steps: run.steps,
        ...(run.end && { end: run.end }),
        figures,
        perCompletedTask: perCompleted(figures) ?? null,
      };
    }),
  };
}

// The title of each task in the runs, from its file's front-matter (a task gone or broken has none).
function titlesOf(boardDir: string, runs: RunRecord[], known: Map<string, string>): Map<string, string> {
  for (const task of new Set(runs.flatMap((run) => run.attempts.map((a) => a.task)))) {
    if (known.has(task)) continue;
    try {
      const title = readTaskMeta(boardDir, task).title;
      if (typeof title === 'string') known.set(task, title);
    } catch {
      // not a task file any more, or not readable: the lane shows its path alone
    }
  }
  return known;
}

// The default place of the page, board-relative: beside the event log it is made from.
const REPORT_PAGE = '.kanban-supervisor/report.html';

/** The default place of the page: beside the event log it is made from. */
export function defaultReportFile(boardFile: string): string {
  return path.join(path.dirname(path.resolve(boardFile)), REPORT_PAGE);
}

/**
 * `kanban-supervisor report`: write a self-contained HTML page of the board and its event log —
 * the board as a kanban view, then a timeline of every attempt per task, totals, and links to
 * each task's work log and each attempt's output files — for the last runs (REPORT_RUNS unless
 * `runs` or `all` says otherwise). Streams the log in and the page out. Writes only the page;
 * takes no lock, so it can run while the supervisor does.
 */
export function report(options: ReportOptions): ReportResult {
  const file = path.resolve(options.file);
  const parts = readPageParts(file, options, options.env);
  if (parts.runs.length === 0) {
    throw new InputError(
      `${path.relative(process.cwd(), path.join(parts.dir, EVENTS))}: no runs recorded yet, so there is nothing ` +
        `to report. Run the board first: ${runnable(options.file)}`,
    );
  }
  const out = pageFile(options.out, file);
  const context = {
    file,
    outDir: path.dirname(out),
    generated: options.now ?? new Date(),
    olderLeftOut: parts.olderLeftOut,
    titles: parts.titles,
    board: parts.board,
    capabilityEvents: CAPABILITY_EVENTS,
  };
  // Outside the board folder the page carries what it links, in a folder beside it.
  // Not for /dev/stdout or a pipe: a page written through to a stream has no folder to travel in.
  const carried = within(out, parts.dir) || !regularOrNew(out) ? undefined : `${out.replace(/\.html?$/i, '')}-files`;
  if (carried)
    Object.assign(context, {
      link: carryingLinker({
        boardDir: parts.dir,
        outDir: context.outDir,
        filesDir: carried,
        secrets: boardSecrets(parts.dir, options.env ?? process.env),
        fallback: (rel: string) =>
          path.relative(context.outDir, path.join(parts.dir, rel)).split(path.sep).map(encodeURIComponent).join('/'),
      }),
    });
  try {
    const page = renderReport(parts.runs, context);
    if (options.out === undefined) {
      writePageInBoard(parts.dir, REPORT_PAGE, page, out);
    } else {
      mkdirSync(path.dirname(out), { recursive: true });
      writePageThrough(out, page);
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (error instanceof SupervisorError || typeof code !== 'string') throw error;
    throw new UnwritableError(
      `${path.relative(process.cwd(), out) || out}: the report cannot be written (${code}). ` +
        `${WRITE_FIXES[code] ?? 'Write it elsewhere with --out FILE.'}`,
    );
  }
  const attempts = parts.runs.reduce((n, run) => n + run.attempts.length, 0);
  return {
    out,
    runs: parts.runs.length,
    attempts,
    olderLeftOut: parts.olderLeftOut,
    ...(carried && { carried }),
  };
}

// --out FILE, or --out DIR (a folder, or a path ending in /): its report.html.
function pageFile(out: string | undefined, boardFile: string): string {
  if (out === undefined) return defaultReportFile(boardFile);
  const resolved = path.resolve(out);
  if (/[/\\]$/.test(out)) return path.join(resolved, 'report.html');
  try {
    return statSync(resolved).isDirectory() ? path.join(resolved, 'report.html') : resolved;
  } catch {
    return resolved;
  }
}

function regularOrNew(file: string): boolean {
  try {
    return statSync(file).isFile();
  } catch {
    return true;
  }
}

function within(file: string, dir: string): boolean {
  return file.startsWith(`${path.resolve(dir)}${path.sep}`);
}
