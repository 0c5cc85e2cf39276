import { createHash } from 'node:crypto';

/**
 * The tag an agent run's processes carry in their environment, as Jenkins' ProcessTreeKiller
 * does: every descendant inherits it, even one that left the process group or the session
 * (setsid, detached, job control, a double fork), so a sweep can find them all in /proc.
 *
 * Format: `ks1-<hash>-<step>-<role>`, where the hash (16 hex digits of SHA-256) covers the
 * board's real path, the run id, the step and the role, and the step and role are repeated
 * only to help a person reading `ps e`. It names one agent run, not one attempt: every retry
 * gets the byte-identical environment. An agent that runs kanban-supervisor itself passes its
 * tag on, and the inner supervisor appends its own after a `:`, so the outer sweep, which
 * matches the tag and everything under it, also stops the inner agents.
 */

/** The environment variable holding the tag. */
export const TAG_VARIABLE = 'KANBAN_SUPERVISOR_TAG';

/** What names one agent run. */
export interface AgentRunId {
  /** The board file's real path (one board, whatever alias it was run through). */
  board: string;
  run: string;
  step: number;
  role: string;
}

/** The tag of one agent run, under the tag this supervisor inherited, if any. Pure. */
export function agentTag(id: AgentRunId, inherited: string | undefined): string {
  const hash = createHash('sha256')
    .update(JSON.stringify([id.board, id.run, id.step, id.role]))
    .digest('hex')
    .slice(0, 16);
  const readable = id.role.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 32);
  const ours = `ks1-${hash}-${id.step}-${readable}`;
  return inherited ? `${inherited}:${ours}` : ours;
}

/** Whether a process whose tag is `value` belongs to the run tagged `tag` (it, or a supervisor nested under it). */
export function carriesTag(value: string, tag: string): boolean {
  return value === tag || (value.startsWith(tag) && value.charCodeAt(tag.length) === 0x3a); // ':'
}
