import { homedir } from 'node:os';
import type { Problem } from '../board/read-board.js';
import type { Role } from '../board/role.js';
import { unreachableCommandProblems } from './fenced-reach.js';
import { fenceProblem } from './probe.js';
import type { agentUser } from './owner.js';
import { missingPaths } from './place.js';
import { configWrites } from './agent-configs.js';

/**
 * What `validate` says of one fenced role's sandbox: whom it runs as and whether bubblewrap can build
 * its fence here (asked once per network setting, in `fences`), a program of it out of its reach, a `write:`
 * of a CLI's own configuration (problems), and declared paths it cannot have (warnings).
 */
export function fenceFindings(
  role: Role,
  fenced: NonNullable<Role['sandbox']>,
  dir: string,
  env: NodeJS.ProcessEnv,
  fences: Map<boolean, string | undefined>,
  who: ReturnType<typeof agentUser>,
): { problems: Problem[]; warnings: Problem[] } {
  const problems: Problem[] = [];
  const warnings: Problem[] = [];
  if (who.problem !== undefined) {
    if (fences.size === 0) problems.push({ file: role.file, line: role.lineOf('/sandbox'), message: who.problem });
    fences.set(fenced.network, undefined);
  }
  if (!fences.has(fenced.network)) fences.set(fenced.network, fenceProblem(fenced.network, env, dir, who.user));
  const problem = fences.get(fenced.network);
  if (problem) problems.push({ file: role.file, line: role.lineOf('/sandbox'), message: problem });
  problems.push(...unreachableCommandProblems(role, dir, env, who.user));
  for (const { written, cli, config } of configWrites(fenced, dir, env.HOME ?? homedir()))
    problems.push({
      file: role.file,
      line: role.lineOf('/sandbox'),
      message:
        `sandbox: write: ${written} ${written === config ? 'is' : 'holds or lies in'} ${cli.name}'s ` +
        `configuration (${config}), which every ${cli.programs[0] ?? ''} you start loads unfenced — its hooks, ` +
        `MCP servers and plugins are programs: a fenced agent could plant one there. ` +
        `Declare it in copy: instead (sandbox: {copy: [${cli.home.map((h) => JSON.stringify(h)).join(', ')}]}): ` +
        `the agent gets a copy, thrown away when it ends.`,
    });
  for (const { written, how, unreachable } of missingPaths(fenced, dir, env, who.user))
    warnings.push({
      file: role.file,
      line: role.lineOf('/sandbox'),
      message: unreachable
        ? `sandbox: the ${how} path ${written} is out of reach of uid ${who.user?.uid}, the board folder's ` +
          `owner, whom the fenced agent runs as (a folder above it is closed to that user), so it is not bound. ` +
          `Give that user access to it, or keep what the agent needs where that user can reach it.`
        : `sandbox: the ${how} path ${written} does not exist, so it is not bound and the agent cannot ` +
          (how === 'writable'
            ? 'create it. Create it first if the agent must write there.'
            : 'read it. Create it first if the agent must.'),
    });
  return { problems, warnings };
}
