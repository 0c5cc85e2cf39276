import { existsSync } from 'node:fs';
import path from 'node:path';
import { fencedRoles } from '../board/fenced-roles.js';
import { InputError } from '../errors.js';
import { refuseBoardConfig, refusePlanted } from './planted.js';
import { findGit } from '../util/process.js';
import { inertCall, type GitPin } from './inert.js';
import { gitSaid, shownPath } from './porcelain.js';
import { runGit, type GitBounds, type GitCall } from './run-git.js';

/** The board's repository, as found at a run's start. */
export interface GitRepo extends GitPin {
  /** The board folder relative to `top` ('' at the top), as a byte string like git's paths. */
  board: string;
  /** The git program every command of the run starts (inert.ts). */
  program: string;
}

/** The repository, or why there is none (the run goes on without commits). */
export type FoundRepo = { repo: GitRepo } | { off: string };

/**
 * Find the repository of the board folder for supervisor.git_commit, once: every later git
 * command of the run names it (inert.ts). No git, or a board outside any repository: `off`, the
 * reason in one line. What would make the run's commits wrong or unsafe is refused here (exit 2,
 * with the fix), before an hour of work, not at the first commit: no identity to commit with, a
 * merge or rebase waiting for the person, a .git an agent may have planted in the board folder,
 * and — when a role is fenced — git configuration that a fenced agent can write.
 */
export async function findRepo(file: string, bounds: GitBounds): Promise<FoundRepo> {
  const dir = path.dirname(file);
  const program = findGit(bounds.env, dir);
  if (program === undefined) return { off: 'git is not installed (not on PATH outside the board folder)' };
  const fenced = fencedRoles(dir).length > 0;
  // Plain English from git here, to tell "not a repository" from other refusals.
  const plain = { ...bounds, cwd: dir, env: { ...bounds.env, LC_ALL: 'C' } };
  const at = (pin?: GitPin) => inertCall(plain, dir, program, pin, fenced);
  const found = await runGit(['rev-parse', '--show-toplevel', '--absolute-git-dir'], at());
  if (found.startError !== undefined) return { off: `git could not be started (${program}: ${found.startError})` };
  if (found.code !== 0 && /not a git repository/i.test(found.stderr))
    return { off: `${dir} is not inside a git repository` };
  const [top, gitDir] = shownPath(found.stdout).split('\n');
  if (found.code !== 0 || !top || !gitDir)
    throw new InputError(
      `${file}: supervisor.git_commit is on, but git refuses the board's folder: ${gitSaid(found.stderr)}. ` +
        `Fix that, or set supervisor.git_commit to false.`,
    );
  const repo: GitRepo = {
    top,
    gitDir,
    program,
    board: Buffer.from(path.relative(top, dir).split(path.sep).join('/')).toString('latin1'),
  };
  await refusePlanted(file, repo, at);
  if (fenced) await refuseBoardConfig(file, repo, at(repo));
  await refuseNoIdentity(file, top, at(repo));
  refuseHalfDone(file, repo);
  return { repo };
}

// git commits with no identity only by guessing one (or not at all):
// found now, with the `git config` lines that fix it.
async function refuseNoIdentity(file: string, top: string, call: GitCall): Promise<void> {
  for (const who of ['GIT_AUTHOR_IDENT', 'GIT_COMMITTER_IDENT']) {
    const ident = await runGit(['var', who], call);
    if (ident.code === 0) continue;
    throw new InputError(
      `${file}: supervisor.git_commit is on, but git has no identity to commit with in ${top} ` +
        `(${gitSaid(ident.stderr, '', 12).split(' / ').at(-1) ?? ''}). ` +
        `Set one: git -C ${JSON.stringify(top)} config user.name "Your Name" && git -C ${JSON.stringify(top)} ` +
        `config user.email "you@example.com" (add --global for every repository), ` +
        `or set supervisor.git_commit to false.`,
    );
  }
}

// What git keeps while a merge, cherry-pick, revert or rebase waits for a person: a commit then would finish it.
const HALF_DONE = {
  MERGE_HEAD: 'a merge',
  CHERRY_PICK_HEAD: 'a cherry-pick',
  REVERT_HEAD: 'a revert',
  'rebase-merge': 'a rebase',
  'rebase-apply': 'a rebase (or git am)',
};

// A step's commit in the middle of a person's merge would become that merge's commit: refused at the start (exit 2).
function refuseHalfDone(file: string, repo: GitRepo): void {
  const found = Object.entries(HALF_DONE).find(([name]) => existsSync(path.join(repo.gitDir, name)));
  if (found)
    throw new InputError(
      `${file}: supervisor.git_commit is on, but ${found[1]} is in progress in ${repo.top}: ` +
        `a step's commit would become part of it. Finish it (git commit, git rebase --continue) ` +
        `or abort it (git merge --abort, git rebase --abort), then run again.`,
    );
}
