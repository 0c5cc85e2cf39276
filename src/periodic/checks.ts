import type { BoardCheck, Need } from '../board/check.js';
import type { Problem } from '../board/read-board.js';
import { sameRole } from '../board/role-names.js';

/**
 * `supervisor.periodic` in the board's pre-flight check: each role it runs is checked like a task's
 * (its role file, command and schema); the Manager cannot be one, as every periodic reply goes to it.
 */
export function periodicChecks(): BoardCheck {
  return {
    needs({ name, state, at }) {
      const problems: Problem[] = [];
      const needs: Array<[string, Need]> = [];
      for (const { role, index } of periodicRoles(state.settings)) {
        const line = at(`/supervisor/periodic/${index}/role`);
        const where = { file: name, ...(line !== undefined && { line }) };
        if (sameRole(role, 'Manager'))
          problems.push({
            ...where,
            message:
              'supervisor.periodic: the Manager cannot be a periodic role: ' +
              'every periodic reply goes to it. Name another role.',
          });
        else
          needs.push([
            role,
            {
              inputs: { role, kanban_file: name, tasks: state.tasks, done_tasks: [] },
              ...where,
              why: 'supervisor.periodic runs it',
            },
          ]);
      }
      return { problems, needs };
    },
  };
}

// The roles of supervisor.periodic as far as they can be read (the schema reports the rest).
function periodicRoles(settings: Record<string, unknown>): Array<{ role: string; index: number }> {
  const list = Array.isArray(settings.periodic) ? (settings.periodic as unknown[]) : [];
  return list.flatMap((entry, index) => {
    const role = entry && typeof entry === 'object' ? (entry as { role?: unknown }).role : undefined;
    return typeof role === 'string' && role !== '' ? [{ role, index }] : [];
  });
}
