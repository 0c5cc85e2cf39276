import type { BoardCheck } from '../board/check.js';
import type { Problem } from '../board/read-board.js';
import { notifyProblem, unsetNotifyVariables, unsetWarning } from '../notify/target.js';

/**
 * `supervisor.notify` in the board's pre-flight check: each malformed entry on its own line (the
 * schema has said if it is no list), and an `env:NAME` whose variable is not set is a warning.
 */
export function notifyChecks(): BoardCheck {
  return {
    board(_roles, { name, state, at, env }) {
      const listed = state.settings.notify;
      const problems: Problem[] = [];
      if (Array.isArray(listed))
        listed.forEach((entry: unknown, i) => {
          const problem = notifyProblem(entry, `supervisor.notify[${i}]`);
          const line = at(`/supervisor/notify/${i}`);
          if (problem) problems.push({ file: name, ...(line !== undefined && { line }), message: problem });
        });
      const line = at('/supervisor/notify');
      const warnings = unsetNotifyVariables(listed, env).map((variable) => ({
        file: name,
        ...(line !== undefined && { line }),
        message: unsetWarning(variable, 'supervisor.notify'),
      }));
      return { problems, warnings };
    },
  };
}
