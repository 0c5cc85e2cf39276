import path from 'node:path';
import { determineRole } from './determine-role.js';
import type { AgentInputs } from './inputs.js';
import type { Board } from './read-board.js';
import { readTaskMeta } from './task.js';

/** The role and inputs of a task's worker (SPEC §2); the loop's and --dry-run's, so both run the same thing. */
export function workerInputs(board: Board, task: string): AgentInputs {
  const role = determineRole(board, readTaskMeta(board.dir, task));
  return { role, kanban_file: path.basename(board.file), task_file: task };
}

/** The Manager's inputs after a reply (SPEC §2); `task` null and `more.trigger` after a periodic role's. */
export function managerInputs(
  board: Board,
  task: string | null,
  reply: Record<string, unknown>,
  more: Partial<AgentInputs> = {},
): AgentInputs {
  return {
    role: 'Manager',
    kanban_file: path.basename(board.file),
    done_task: task,
    tasks: board.tasks,
    result: reply,
    ...more,
  };
}
