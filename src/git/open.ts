import { existsSync } from 'node:fs';
import path from 'node:path';
import { InputError } from '../errors.js';
import { gitEnv, gitSaid } from './porcelain.js';
import { runGit, type GitCall } from './run-git.js';

/** The board's repository, as found at a run's start. */
export interface GitRepo {
  /** The work tree's top folder. */
  top: string;
  /** The board folder relative to `top` ('' at the top), as a byte string like git's paths. */
  board: string;
}

/** The repository, or why there is none (the run goes on without commits). */
export type FoundRepo = { repo: GitRepo } | { off: string };

/**
 * Find the repository of the board folder `dir` for supervisor.git_commit. No git, or a board
 * outside any repository: `off`, the reason in one line. A repository git cannot commit to for
 * want of an identity (no user.name / user.email it accepts) is found here, before an hour of
 * work, not at the first commit: an InputError (exit 2) with the `git config` lines that fix it.
 */
export async function findRepo(file: string, call: GitCall): Promise<FoundRepo> {
  const dir = path.dirname(file);
  // Plain English from git here, to tell "not a repository" from other refusals.
  const plain: GitCall = { ...call, cwd: dir, env: gitEnv(call.env, { LC_ALL: 'C' }) };
  const top = await runGit(['rev-parse', '--show-toplevel'], plain);
  if (top.startError !== undefined)
    return {
      off: `git could not be started (${top.startError}${top.startError === 'ENOENT' ? ': it is not installed or not on PATH' : ''})`,
    };
  if (top.code !== 0 && /not a git repository/i.test(top.stderr))
    return { off: `${dir} is not inside a git repository` };
  if (top.code !== 0)
    throw new InputError(
      `${file}: supervisor.git_commit is on, but git refuses the board's folder: ${gitSaid(top.stderr)}. Fix that, or set supervisor.git_commit to false.`,
    );
  const topDir = Buffer.from(top.stdout.replace(/\n$/, ''), 'latin1').toString('utf8');
  for (const who of ['GIT_AUTHOR_IDENT', 'GIT_COMMITTER_IDENT']) {
    const ident = await runGit(['var', who], { ...plain, cwd: topDir });
    if (ident.code === 0) continue;
    throw new InputError(
      `${file}: supervisor.git_commit is on, but git has no identity to commit with in ${topDir} (${gitSaid(ident.stderr, '', 12).split(' / ').at(-1) ?? ''}). ` +
        `Set one: git -C ${JSON.stringify(topDir)} config user.name "Your Name" && git -C ${JSON.stringify(topDir)} config user.email "you@example.com" (add --global for every repository), or set supervisor.git_commit to false.`,
    );
  }
  await refuseHalfDone(file, topDir, plain);
  return {
    repo: { top: topDir, board: Buffer.from(path.relative(topDir, dir).split(path.sep).join('/')).toString('latin1') },
  };
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
async function refuseHalfDone(file: string, top: string, call: GitCall): Promise<void> {
  const gitDir = await runGit(['rev-parse', '--absolute-git-dir'], { ...call, cwd: top });
  if (gitDir.code !== 0)
    throw new InputError(
      `${file}: supervisor.git_commit is on, but git cannot tell where the repository of ${top} is: ${gitSaid(gitDir.stderr)}.`,
    );
  const dir = Buffer.from(gitDir.stdout.replace(/\n$/, ''), 'latin1').toString('utf8');
  const found = Object.entries(HALF_DONE).find(([name]) => existsSync(path.join(dir, name)));
  if (found)
    throw new InputError(
      `${file}: supervisor.git_commit is on, but ${found[1]} is in progress in ${top}: a step's commit would become part of it. Finish it (git commit, git rebase --continue) or abort it (git merge --abort, git rebase --abort), then run again.`,
    );
}
