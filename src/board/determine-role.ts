import type { BoardState } from './read-board.js';
import type { TaskMeta } from './task.js';

/** The phases SPEC §1 gives a meaning; other strings are allowed and run their tasks as Implementor. */
export const KNOWN_PHASES = ['design', 'plan', 'execute', 'validate', 'complete'];

/**
 * `determine_role` (SPEC §1): the task's own `role`, else the board's phase, else Implementor.
 */
export function determineRole(board: Pick<BoardState, 'phase' | 'sub_phase'>, task: TaskMeta): string {
  if (typeof task.role === 'string' && task.role.length > 0) return task.role;
  switch (board.phase) {
    case 'design':
      return 'Architect';
    case 'plan':
      return 'Manager';
    case 'execute':
      return board.sub_phase === 'review' ? 'Architect' : 'Implementor';
    case 'validate':
      return 'Architect';
    default:
      return 'Implementor';
  }
}
