import type { BoardCheck } from '../board/check.js';
import type { Role } from '../board/role.js';
import { fenceFindings } from './check-fence.js';
import { agentUser } from './owner.js';
import { outsideWritesEnv } from '../board/outside-writes.js';
import { pathWarnings, unfencedRunProblems } from './unfenced-runs.js';

/**
 * The sandbox's part of the pre-flight check (board/check.ts), one for each check of a board: each
 * fenced role's fence (fenceFindings); then, on a board with a fenced role, what would run unfenced
 * where a fenced agent can write, the run's PATH entries there, and what each role may reach.
 */
export function sandboxChecks(): BoardCheck {
  // Whether bubblewrap can build a fence here is asked once (per network setting), for the first fenced role.
  const fences = new Map<boolean, string | undefined>();
  // Who a fenced agent runs as on the host: one look at the board folder for every fenced role.
  let owner: ReturnType<typeof agentUser> | undefined;
  return {
    env: (dir, env) => outsideWritesEnv(dir, env).env,
    role(role, _need, { dir, env }) {
      const fenced = role.sandbox;
      if (!fenced) return { problems: [], warnings: [] };
      return fenceFindings(role, fenced, dir, env, fences, (owner ??= agentUser(dir)));
    },
    board(roles, { dir, name, env, given }) {
      const unfenced = roles.filter(({ role }) => !role.sandbox);
      return {
        problems: unfencedRunProblems(dir, name, unfenced, env),
        warnings: pathWarnings(dir, name, given),
        ...(unfenced.length < roles.length && { access: roles.map(({ role }) => accessLine(role)) }),
      };
    },
  };
}

// What a role may read, write and run, in words (validate and --dry-run, on a board with a fenced role).
function accessLine(role: Role): string {
  const spec = role.sandbox;
  if (!spec)
    return (
      `${role.name} (${role.file}): unfenced — runs as you and may read, write and run what you can; ` +
      `it is no agent CLI and lies outside every path a fenced agent writes (else a problem above says so)`
    );
  const list = (paths: string[]) => paths.join(', ');
  return (
    `${role.name} (${role.file}): fenced — writes the board folder (but its own files)` +
    `${spec.write.length ? `, ${list(spec.write)}` : ''} and a /tmp of its own` +
    `${spec.copy?.length ? `; a copy of ${list(spec.copy)}, thrown away when it ends` : ''}; ` +
    `reads the file system but the home folder, /run and credential stores` +
    `${spec.read.length ? ` (and reads ${list(spec.read)})` : ''}; network ${spec.network ? 'on' : 'off'}`
  );
}
