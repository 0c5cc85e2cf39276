import { outsidePath } from '../util/process.js';
import { gitEnv } from './porcelain.js';
import type { GitBounds, GitCall } from './run-git.js';

/** The repository a run found at its start: every later git command names it, none searches for one. */
export interface GitPin {
  /** The work tree's top folder. */
  top: string;
  /** Its git folder, absolute (a linked worktree's own, under the main repository's .git/worktrees/). */
  gitDir: string;
}

/**
 * How the run's git is started: the program found at the start, the repository pinned once
 * found, and nothing that runs a program of the repository's or the board's — no fsmonitor,
 * no automatic maintenance (it would outlive the commit), and, when any role of the board is
 * fenced, no hook and no PATH entry a fenced agent could have put a program in (the scripts a
 * hook calls, husky's `.husky/pre-commit` say, are theirs to rewrite). Unfenced, the person's
 * hooks run as they always do: an unfenced agent could do whatever a hook does anyway.
 */
export function inertCall(
  bounds: GitBounds,
  boardDir: string,
  program: string,
  pin: GitPin | undefined,
  fenced: boolean,
): GitCall {
  const env = fenced ? { ...bounds.env, PATH: outsidePath(bounds.env.PATH, boardDir) } : bounds.env;
  const config = ['core.fsmonitor=false', 'core.untrackedCache=false', 'maintenance.auto=false'];
  if (fenced) config.push('core.hooksPath=/dev/null'); // no hook is found under a file: none runs
  return {
    ...bounds,
    cwd: pin?.top ?? bounds.cwd,
    env: gitEnv(env),
    program,
    options: [
      ...(pin ? [`--git-dir=${pin.gitDir}`, `--work-tree=${pin.top}`] : []),
      ...config.flatMap((c) => ['-c', c]),
    ],
  };
}
