import path from 'node:path';
import { InputError } from '../errors.js';
import { isWithin, realOr } from '../util/real-path.js';
import type { GitPin } from './inert.js';
import { shownPath } from './porcelain.js';
import { runGit, type GitCall } from './run-git.js';

/**
 * A .git in the board folder itself, inside a repository that holds the board's files and
 * does not know it as a submodule: an agent of an earlier run can make one (the board folder is
 * writable), and this run would take it as "the repository" — commit into it and run its hooks.
 * A repository of the board's own inside another that never held the board (an untracked or
 * ignored folder of it) is a person's setup, and used as it always was.
 */
export async function refusePlanted(file: string, repo: GitPin, at: (pin?: GitPin) => GitCall): Promise<void> {
  const parent = path.dirname(repo.top);
  if (realOr(repo.top) !== realOr(path.dirname(file)) || parent === repo.top) return;
  const around = await runGit(['rev-parse', '--show-toplevel', '--absolute-git-dir'], { ...at(), cwd: parent });
  const [top, gitDir] = shownPath(around.stdout).split('\n');
  // none around it (or one git refuses, which nothing commits into either)
  if (around.code !== 0 || !top || !gitDir) return;
  const held = await runGit(['ls-files', '--stage', '-z', '--', path.relative(top, repo.top)], at({ top, gitDir }));
  const entries = held.stdout.split('\0').filter(Boolean);
  if (held.code !== 0 || entries.length === 0 || (entries.length === 1 && entries[0]?.startsWith('160000 '))) return;
  throw new InputError(
    `${file}: supervisor.git_commit is on, but the board folder is a git repository of its own (${repo.gitDir}) ` +
      `inside the repository ${top} (${gitDir}), which holds the board's files and does not know it as a submodule. ` +
      `An agent may have made it, and the run would commit into it and run what it says. ` +
      `If you did not make it, remove it (rm -rf ${JSON.stringify(path.join(repo.top, '.git'))}) and run again; ` +
      `if you did, make it a submodule of ${top}, or set supervisor.git_commit to false.`,
  );
}

/**
 * With a role fenced, git configuration a fenced agent can write — a file in the board folder,
 * outside the git folder, that git reads, would include, or would read once it exists (a global
 * one, with HOME in the board folder) — names the programs git runs (a filter, gpg.program…),
 * which would run unfenced: refused.
 */
export async function refuseBoardConfig(file: string, repo: GitPin, call: GitCall): Promise<void> {
  const listed = await runGit(['config', '--list', '--show-origin', '-z'], call);
  const board = realOr(path.dirname(file));
  const gitDir = realOr(repo.gitDir);
  const found = configFiles(listed.stdout, call.cwd, call.env).find(
    (config) => isWithin(realOr(config), board) && !isWithin(realOr(config), gitDir),
  );
  if (found)
    throw new InputError(
      `${file}: supervisor.git_commit is on and a role is fenced, but git reads its configuration from ${found}, ` +
        `in the board folder, where a fenced agent can rewrite it and choose the programs the supervisor's git runs. ` +
        `Move it out of the board folder (and the include.path that names it with it), ` +
        `or set supervisor.git_commit to false.`,
    );
}

/**
 * The files git reads its configuration from, would include, or would
 * read as its global one (pure), by `git config --list --show-origin -z`.
 */
export function configFiles(output: string, cwd: string, env: Readonly<Record<string, string | undefined>>): string[] {
  const home = env.HOME;
  const fields = shownPath(output).split('\0');
  const files = env.GIT_CONFIG_GLOBAL
    ? [path.resolve(cwd, env.GIT_CONFIG_GLOBAL)]
    : home
      ? [path.join(home, '.gitconfig'), path.join(env.XDG_CONFIG_HOME || path.join(home, '.config'), 'git/config')]
      : [];
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const origin = fields[i] as string;
    if (!origin.startsWith('file:')) continue; // the command line, standard input, a blob
    const from = path.resolve(cwd, origin.slice('file:'.length));
    const [key = '', ...value] = (fields[i + 1] as string).split('\n');
    const named = value.join('\n');
    files.push(from);
    if (/^include(if\..*)?\.path$/.test(key))
      files.push(
        named.startsWith('~/') && home ? path.join(home, named.slice(2)) : path.resolve(path.dirname(from), named),
      );
  }
  return files;
}
