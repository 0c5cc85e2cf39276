import { existsSync } from 'node:fs';
import type { Need } from './check-seam.js';
import { determineRole } from './determine-role.js';
import { resolveAllInBoard, type BoardFile } from './paths.js';
import { fieldWords } from './pointer-words.js';
import type { BoardState, Problem } from './read-board.js';
import { roleLookalikes } from './role-names.js';
import { readTask } from './task.js';
import { OwnFileError } from './task-identity.js';
import { SupervisorError } from '../errors.js';

/** Problems stop a run; warnings do not. Each part of the check adds to both. */
export interface Found {
  problems: Problem[];
  warnings: Problem[];
}

/**
 * The board's tasks, checked (each listed task file and current): each one's file and front-matter,
 * and the role it runs as, with where that is asked for. Returns the roles the tasks need and the task
 * files seen; a bad path is the board's parse's problem, already listed.
 */
export function taskNeeds(
  state: BoardState,
  { dir, name, at }: { dir: string; name: string; at(pointer: string): number },
  { problems, warnings }: Found,
): { needs: Map<string, Need>; seen: Set<string> } {
  const needs = new Map<string, Need>();
  const listed = state.tasks.map((task, i) => ({ task, pointer: `/tasks/${i}` }));
  if (state.current !== null && !state.tasks.includes(state.current))
    listed.push({ task: state.current, pointer: '/current' });
  const seen = new Set<string>();
  // Checked at once: a folder of thousands of tasks is listed, not resolved a path at a time.
  const paths = resolveAllInBoard(
    dir,
    listed.map(({ task }) => task),
  );
  for (const [i, { task, pointer }] of listed.entries()) {
    const where = paths[i] as BoardFile;
    if (!where.ok || seen.has(task)) continue; // a bad path is parseBoard's problem, already listed
    seen.add(task);
    if (where.file !== true && !existsSync(where.absolute)) {
      problems.push({
        file: name,
        line: at(pointer),
        message: `${fieldWords(pointer)} "${task}": no such file. Create it or remove it from tasks.`,
      });
      continue;
    }
    try {
      const { meta, lineOf: taskLine } = readTask(dir, task, name, where);
      const role = determineRole(state, meta);
      const fromTask = typeof meta.role === 'string' && meta.role.length > 0;
      const why = fromTask
        ? { file: task, line: taskLine('/role'), why: `its front-matter asks for role ${role}` }
        : {
            file: name,
            line: at('/phase'),
            why: `${task} runs as ${role} (phase ${JSON.stringify(state.phase ?? null)})`,
          };
      if (!needs.has(role)) needs.set(role, { inputs: { role, kanban_file: name, task_file: task }, ...why });
      for (const key of roleLookalikes(meta)) {
        const runs = fromTask ? `its role: line asks for ${role}` : `it runs as ${role}, from the phase`;
        warnings.push({
          file: task,
          line: taskLine(`/${key}`),
          message:
            `front-matter key "${key}" looks like a misspelt role and is ignored (${runs}). ` +
            `If it names the role to run, rename it to role:.`,
        });
      }
    } catch (error) {
      if (error instanceof OwnFileError)
        problems.push({
          file: name,
          line: at(pointer),
          message:
            `${fieldWords(pointer)} "${task}" ${error.reason}; an agent's work log would be written into it. ` +
            `List a task file of its own there.`,
        });
      else if (!(error instanceof SupervisorError)) throw error;
      else problems.push(problemFrom(error.message, task));
    }
  }
  return { needs, seen };
}

/** A problem from an InputError message that starts `file:line: ` or `file: `. */
function problemFrom(message: string, file: string): Problem {
  const match = new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:(?:(\\d+):)? `).exec(message);
  if (!match) return { file, message };
  return { file, ...(match[1] !== undefined && { line: Number(match[1]) }), message: message.slice(match[0].length) };
}
