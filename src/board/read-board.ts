import path from 'node:path';
import type { Document } from 'yaml';
import type { ErrorObject } from 'ajv';
import { InputError } from '../errors.js';
import { readBoardText } from './board-file.js';
import { describeErrors, pointerOf, schemaText, validator } from '../schemas.js';
import { runnable, shellWord } from '../util/self-command.js';
import { closest } from '../util/suggest.js';
import { normalPath, resolveAllInBoard, resolveInBoard } from './paths.js';
import { lineOf, parseYaml, type ParsedYaml } from './yaml.js';
import { fieldWords, plainSchemaMessage } from './pointer-words.js';

/** Optional `supervisor:` settings in kanban.yaml (command-line flags override them). */
export type BoardSettings = Record<string, unknown>;

/** The fields of kanban.yaml the supervisor reads and the Manager changes. */
export interface BoardState {
  phase?: string;
  sub_phase?: string | null;
  current: string | null;
  tasks: string[];
}

/** kanban.yaml as read at the top of a step. */
export interface Board extends BoardState {
  /** Absolute real path of kanban.yaml. */
  file: string;
  /** The board folder: every task, role and agent path is relative to it. */
  dir: string;
  /** The exact text read, to see a person's edits before writing. */
  text: string;
  /**
   * The parse of `text` (made by this read, or the one that checked
   * it when this run wrote it); never changed, a write splices by it.
   */
  doc: Document;
  settings: BoardSettings;
}

/** One thing wrong with a file, with its line when known. */
export interface Problem {
  file: string;
  line?: number;
  message: string;
}

/** Render a problem as `file:line: message`. */
export function formatProblem(problem: Problem): string {
  return `${problem.file}${problem.line ? `:${problem.line}` : ''}: ${problem.message}`;
}

/**
 * Parse and check a board text; every problem is returned, nothing is thrown. `paths: false`
 * checks its shape only, for a text whose task paths were checked already.
 */
export function parseBoard(
  file: string,
  text: string,
  parsed: ParsedYaml = parseYaml(text),
  options: { paths?: boolean } = {},
): { board?: Board; problems: Problem[] } {
  const name = path.basename(file);
  if (!parsed.ok)
    return {
      problems: [
        { file: name, line: parsed.line, message: `${parsed.message}. ${parsed.fix ?? 'Fix the YAML syntax.'}` },
      ],
    };
  const data = parsed.value;
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    return {
      problems: [{ file: name, line: 1, message: 'must be a YAML mapping with at least `current:` and `tasks:`.' }],
    };
  }
  const at = (pointer: string) => lineOf(parsed.doc, parsed.lines, pointer);
  const validate = validator('kanban');
  if (!validate(data)) {
    const problems = (validate.errors ?? []).map((error) => {
      const lookalike = misspeltField(error, data);
      return {
        file: name,
        line: at(lookalike ? `/${lookalike.key}` : pointerOf(error)),
        message: (
          `${plainSchemaMessage(describeErrors([error], data)[0] ?? 'is invalid')}. ` +
          `${lookalike?.fix ?? boardFix(error)}`
        ).trim(),
      };
    });
    return { problems: dedupe(problems) };
  }
  const dir = path.dirname(file);
  const state = data as BoardState & { supervisor?: BoardSettings };
  const problems =
    options.paths === false
      ? []
      : pathProblems(dir, name, state).map(({ pointer, message }) => ({ file: name, line: at(pointer), message }));
  if (problems.length) return { problems };
  const board: Board = {
    file,
    dir,
    text,
    doc: parsed.doc,
    current: state.current,
    tasks: state.tasks,
    settings: state.supervisor ?? {},
    ...(state.phase !== undefined && { phase: state.phase }),
    ...(state.sub_phase !== undefined && { sub_phase: state.sub_phase }),
  };
  return { board, problems };
}

// Every task path inside the board, no task listed twice, and current one of them.
function pathProblems(dir: string, name: string, state: BoardState): Array<{ pointer: string; message: string }> {
  const found: Array<{ pointer: string; message: string }> = [];
  const seen = new Map<string, number>();
  resolveAllInBoard(dir, state.tasks).forEach((where, i) => {
    const task = state.tasks[i] as string;
    const first = seen.get(normalPath(task));
    if (!where.ok)
      found.push({
        pointer: `/tasks/${i}`,
        message: `${fieldWords(`/tasks/${i}`)} ${JSON.stringify(task)} ${where.reason}.`,
      });
    else if (first !== undefined)
      found.push({
        pointer: `/tasks/${i}`,
        message:
          `${fieldWords(`/tasks/${i}`)} ${JSON.stringify(task)} is already listed as ` +
          `${fieldWords(`/tasks/${first}`)}. List each task once.`,
      });
    seen.set(normalPath(task), first ?? i);
  });
  if (state.current === null) return found;
  const where = resolveInBoard(dir, state.current);
  const notTask = notATaskFile(state.current, name);
  if (!where.ok)
    found.push({
      pointer: '/current',
      message: `current ${JSON.stringify(state.current)} ${where.reason}. Set it to a task path from tasks.`,
    });
  else if (notTask)
    found.push({
      pointer: '/current',
      message:
        `current ${JSON.stringify(state.current)} is ${notTask}, not a task file. ` +
        `Set it to a task path from tasks.`,
    });
  else if (!state.tasks.includes(state.current))
    found.push({
      pointer: '/current',
      message:
        `current ${JSON.stringify(state.current)} is not in tasks. ` + `Add it to tasks or set current to one of them.`,
    });
  return found;
}

/** What a path is if it is one of the supervisor's own files rather than a task (undefined for a task). */
export function notATaskFile(relative: string, boardName: string): string | undefined {
  const normal = normalPath(relative);
  if (normal === boardName) return 'the board itself';
  if (normal.startsWith('roles/')) return 'a role file';
  if (normal === '.kanban-supervisor' || normal.startsWith('.kanban-supervisor/')) return "the supervisor's state";
  if (normal === 'supervisor.log.md') return 'the Supervisor Log';
  return undefined;
}

// A required field that is missing beside a key spelt nearly like it (`curent:`): the key to rename, and how.
function misspeltField(error: ErrorObject, data: object): { key: string; fix: string } | undefined {
  const missing = (error.params as { missingProperty?: string }).missingProperty;
  if (error.keyword !== 'required' || error.instancePath !== '' || missing === undefined) return undefined;
  const known = Object.keys((schemaText('kanban') as { properties: object }).properties);
  const key = Object.keys(data).find((k) => !known.includes(k) && closest(k, [missing]) === missing);
  return key === undefined ? undefined : { key, fix: `Did you mean ${missing}? Rename ${key}: to ${missing}:.` };
}

function boardFix(error: { instancePath: string; keyword: string; params: unknown }): string {
  const params = error.params as { missingProperty?: string; additionalProperty?: string };
  if (params.missingProperty === 'current')
    return 'Add `current: <task path>` (or `current: null` when nothing is left).';
  if (params.missingProperty === 'tasks') return 'Add `tasks:` with the list of task file paths.';
  if (error.keyword === 'additionalProperties' && error.instancePath === '/supervisor') {
    const known = (schemaText('kanban') as { properties: { supervisor: { properties: object } } }).properties.supervisor
      .properties;
    const guess = closest(String(params.additionalProperty), Object.keys(known));
    return guess ? `Did you mean ${guess}?` : 'See the supervisor settings in docs/board.md.';
  }
  if (error.instancePath === '/current') return 'Set it to a task path from tasks.';
  if (error.instancePath.startsWith('/tasks')) return 'List task file paths, e.g. `- tasks/001-design.md`.';
  if (error.instancePath.startsWith('/supervisor')) return 'See the supervisor settings in docs/board.md.';
  return '';
}

function dedupe(problems: Problem[]): Problem[] {
  const seen = new Set<string>();
  return problems.filter((p) => !seen.has(formatProblem(p)) && seen.add(formatProblem(p)));
}

/** Whether the board has nothing left to run (SPEC §2): no current task, or the phase is complete. */
export function isFinished(board: BoardState): boolean {
  return board.current === null || board.phase === 'complete';
}

/** A board text the run itself wrote, with the parse that checked it before the write. */
export interface WrittenText {
  text: string;
  parsed: ParsedYaml;
}

/**
 * Read kanban.yaml; any problem is an InputError (exit 2) naming the file, the line and the fix.
 * When the file still holds exactly the text the last step wrote, that text's parse is used
 * again: on a board of thousands of tasks a parse is the bulk of a step, and this keeps it to one.
 * The checks on the paths are made again either way, since task files may have changed.
 */
export function readBoard(file: string, written?: WrittenText): Board {
  return boardOf(file, readBoardText(file), written);
}

/** kanban.yaml's text and its parse, read once for callers that check and run the same read. */
export function readBoardSeen(file: string): WrittenText {
  const text = readBoardText(file);
  return { text, parsed: parseYaml(text) };
}

/**
 * The board a text read from `file` holds (reusing `written`'s parse
 * when it is of this text); its first problem is an InputError.
 */
export function boardOf(file: string, text: string, written?: WrittenText): Board {
  const { board, problems } = parseBoard(file, text, written?.text === text ? written.parsed : undefined);
  if (!board) {
    const shown = path.relative(process.cwd(), file);
    const more =
      problems.length > 1
        ? ` (and ${problems.length - 1} more problem(s): run ` +
          `\`${runnable(`validate${shown === 'kanban.yaml' ? '' : ` ${shellWord(shown)}`}`)}\`)`
        : '';
    throw new InputError(`${formatProblem(problems[0] as Problem)}${more}`);
  }
  return board;
}
