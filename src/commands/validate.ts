import path from 'node:path';
import { checkBoard, type Validation } from '../board/check.js';
import { loadSeams } from '../run/capability-list.js';
import { formatProblem, type Problem } from '../board/read-board.js';

/** `kanban-supervisor validate`: the board's pre-flight check (board/check.ts), which `run` makes too. Reads only. */
export async function validate(options: { file: string; env?: NodeJS.ProcessEnv }): Promise<Validation> {
  return checkBoard(options, (await loadSeams()).boardChecks());
}

/** The validation as lines `file:line: message` (paths relative to `cwd`) and a summary (pure). */
export function formatValidation(result: Validation, cwd: string): string {
  const dir = path.relative(cwd, path.dirname(result.file));
  const shown = (problem: Problem) => formatProblem({ ...problem, file: path.join(dir, problem.file) });
  const name = path.join(dir, path.basename(result.file));
  const warnings = result.warnings.map((w) => `${shown(w)} (warning)\n`).join('');
  const note = result.note ? ` ${result.note}` : '';
  const access = (result.access ?? []).map((line) => `  ${line}\n`).join('');
  if (result.problems.length === 0)
    return (
      `${warnings}${name}: OK — ${result.tasks} task file(s) and ${result.roles.length} role file(s) ` +
      `(${result.roles.join(', ')}) checked.${note}\n${access}`
    );
  return (
    `${result.problems.map(shown).join('\n')}\n${warnings}${result.problems.length} problem(s) found; ` +
    `nothing was run or changed.\n`
  );
}
