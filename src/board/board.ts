import { readFileSync } from 'node:fs';
import path from 'node:path';
import { InputError } from '../errors.js';
import { resolveAllInBoard, resolveInBoard } from './paths.js';
import { describeErrors, validator } from '../schemas.js';
import type { Document } from 'yaml';
import { lineOf, parseYaml, type ParsedYaml } from './yaml.js';

/** Optional `supervisor:` settings in kanban.yaml (CLI flags override them). */
export interface BoardSettings {
  max_retries?: number;
  max_steps?: number;
  max_same_task?: number;
  timeout?: string | number;
  idle_timeout?: string | number;
  kill_grace?: string | number;
}

/** The fields of kanban.yaml the supervisor reads and the Manager changes. */
export interface BoardState {
  phase?: string;
  sub_phase?: string | null;
  current: string | null;
  tasks: string[];
}

/** kanban.yaml as read at the top of a step. */
export interface Board extends BoardState {
  /** Absolute path of kanban.yaml. */
  file: string;
  /** The board folder: every task, role and agent path is relative to it. */
  dir: string;
  /** The exact text read, to detect a person's edits before writing. */
  text: string;
  settings: BoardSettings;
  /** The parse of `text`, which a write splices into; a write of a few scalar lines moves it to the new text (line-splice.ts). */
  doc?: Document;
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

/** Parse and check a board text (or check its parse, if given); every problem is returned, nothing is thrown. */
export function parseBoard(file: string, text: string, parsed: ParsedYaml = parseYaml(text)): { board?: Board; problems: Problem[] } {
  const name = path.basename(file);
  if (!parsed.ok) {
    return { problems: [{ file: name, line: parsed.line, message: `${parsed.message}. Fix the YAML syntax.` }] };
  }
  const data = parsed.value;
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    return { problems: [{ file: name, line: 1, message: 'must be a YAML mapping with at least `current:` and `tasks:`.' }] };
  }
  const validate = validator('kanban');
  if (!validate(data)) {
    const problems = (validate.errors ?? []).map((error, i) => ({
      file: name,
      line: lineOf(parsed.doc, parsed.lines, error.instancePath),
      message: `${describeErrors([error], data)[0] ?? 'is invalid'}. ${boardFix(error.instancePath, (validate.errors ?? [])[i]?.params)}`.trim(),
    }));
    return { problems: dedupe(problems) };
  }
  const dir = path.dirname(file);
  const state = data as BoardState & { supervisor?: BoardSettings };
  const problems: Problem[] = [];
  resolveAllInBoard(dir, state.tasks).forEach((where, i) => {
    if (!where.ok) problems.push({ file: name, line: lineOf(parsed.doc, parsed.lines, `/tasks/${i}`), message: `/tasks/${i} "${state.tasks[i]}" ${where.reason}.` });
  });
  if (state.current !== null) {
    const line = lineOf(parsed.doc, parsed.lines, '/current');
    const where = resolveInBoard(dir, state.current);
    if (!where.ok) {
      problems.push({ file: name, line, message: `/current "${state.current}" ${where.reason}. Set it to a task path from /tasks.` });
    } else if (!state.tasks.includes(state.current)) {
      problems.push({ file: name, line, message: `/current "${state.current}" is not in /tasks. Add it to /tasks or set current to one of them.` });
    }
  }
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
  return problems.length ? { problems } : { board, problems };
}

function boardFix(pointer: string, params: unknown): string {
  const missing = (params as { missingProperty?: string } | undefined)?.missingProperty;
  if (missing === 'current') return 'Add `current: <task path>` (or `current: null` when nothing is left).';
  if (missing === 'tasks') return 'Add `tasks:` with the list of task file paths.';
  if (pointer === '/current') return 'Set it to a task path from /tasks.';
  if (pointer.startsWith('/tasks')) return 'List task file paths, e.g. `- tasks/001-design.md`.';
  if (pointer.startsWith('/supervisor')) return 'See the supervisor settings in the README.';
  return '';
}

function dedupe(problems: Problem[]): Problem[] {
  const seen = new Set<string>();
  return problems.filter((p) => !seen.has(formatProblem(p)) && seen.add(formatProblem(p)));
}

/**
 * Read kanban.yaml; any problem is an InputError (exit 2) naming the file, the line and the fix.
 * If the text is still that of `previous` (the board the loop just wrote and checked), that
 * board is returned as it is, without parsing and checking it again.
 */
export function readBoard(file: string, previous?: Board): Board {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new InputError(readFailure(file, error));
  }
  if (previous?.file === file && previous.text === text) return previous;
  const { board, problems } = parseBoard(file, text);
  if (!board) {
    const more = problems.length > 1 ? ` (and ${problems.length - 1} more problem(s): run \`kanban-supervisor validate ${path.basename(file)}\`)` : '';
    throw new InputError(`${formatProblem(problems[0] as Problem)}${more}`);
  }
  return board;
}

/** A one-line reason why a file could not be read. */
export function readFailure(file: string, error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return `${file}: no such file. Check the path, or create a board with \`kanban-supervisor init\`.`;
  if (code === 'EISDIR') return `${file}: is a folder, not a file. Pass the path of kanban.yaml.`;
  if (code === 'EACCES') return `${file}: permission denied. Make it readable.`;
  return `${file}: cannot be read (${(error as Error).message}).`;
}
