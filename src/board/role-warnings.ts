import { AGENTS, agentFor } from '../agents/index.js';
import { formatDuration } from '../util/duration.js';
import { runnable } from '../util/self-command.js';
import type { Problem } from './read-board.js';
import type { Role } from './role.js';

/**
 * What is allowed in a role file but most likely not meant (pure): a known agent CLI that would
 * get no prompt at all (stdin none and no "{{prompt}}" argument), and a role `timeout:` shorter than
 * the board's `supervisor.timeout`, which it silently beats. `boardTimeoutMs`: the board's, if set.
 */
export function roleWarnings(role: Role, boardTimeoutMs: number | undefined): Problem[] {
  const warnings: Problem[] = [];
  const cli = agentFor(role.command);
  if (AGENTS.includes(cli) && role.stdin === 'none' && !role.command.some((part) => part.includes('{{prompt}}'))) {
    warnings.push({
      file: role.file,
      line: role.lineOf('/stdin'),
      message:
        `stdin is none and no argument of \`command:\` holds {{prompt}}, so ${cli.name} gets no prompt at all. ` +
        `Use \`stdin: prompt\`, or pass the prompt as its last argument: ` +
        `"{{prompt}}" (see \`${runnable(`init --agent ${cli.preset ?? cli.name}`)}\`).`,
    });
  }
  if (role.timeoutMs !== undefined && boardTimeoutMs !== undefined && role.timeoutMs < boardTimeoutMs) {
    warnings.push({
      file: role.file,
      line: role.lineOf('/timeout'),
      message:
        `timeout ${formatDuration(role.timeoutMs)} is shorter than supervisor.timeout ` +
        `${formatDuration(boardTimeoutMs)} in kanban.yaml, and a role's timeout wins (over --timeout too): ` +
        `${role.name} is stopped after ${formatDuration(role.timeoutMs)}. ` +
        `Remove the line to use the board's, or keep it if that is meant.`,
    });
  }
  return warnings;
}
