import { execFileSync } from 'node:child_process';
import { chmodSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { boardWithTasks, fixtureRole, tempDir } from './helpers.js';

/** Boards in real git repositories, as the git tests make them. */

// git as the tests run it: no person's or system's configuration, so the identity is the repository's own.
export function gitEnv(): Record<string, string> {
  const home = tempDir('ks-git-home-');
  writeFileSync(path.join(home, 'gitconfig'), '');
  return { GIT_CONFIG_GLOBAL: path.join(home, 'gitconfig'), GIT_CONFIG_NOSYSTEM: '1', HOME: home };
}

export function git(dir: string, env: Record<string, string>, ...args: string[]): string {
  return execFileSync('git', args, { cwd: dir, env: { ...process.env, ...env }, encoding: 'utf8' });
}

/** A board with `n` tasks whose Implementor writes a file, committed as a repository with an identity. */
export function repoBoard(
  n: number,
  options: { settings?: string; files?: Record<string, string>; identity?: boolean } = {},
) {
  const env = gitEnv();
  const dir = boardWithTasks(
    n,
    { 'roles/implementor.md': fixtureRole('writes-file.mjs'), 'notes.txt': 'the person’s notes\n', ...options.files },
    `phase: execute\nsupervisor:\n  git_commit: true\n${options.settings ?? ''}`,
  );
  git(dir, env, 'init', '-q', '-b', 'main');
  if (options.identity !== false) {
    git(dir, env, 'config', 'user.name', 'Night Run');
    git(dir, env, 'config', 'user.email', 'night@example.com');
  } else {
    // No guessing from the host's name either (git would on a host with a domain): no identity at all.
    git(dir, env, 'config', 'user.useConfigOnly', 'true');
  }
  git(dir, env, 'add', '-A');
  git(dir, env, '-c', 'user.name=Setup', '-c', 'user.email=setup@example.com', 'commit', '-q', '-m', 'the board');
  return { dir, env, file: path.join(dir, 'kanban.yaml') };
}

// Each commit after the first: its subject, and the paths it holds.
export function commits(
  dir: string,
  env: Record<string, string>,
): Array<{ subject: string; body: string; files: string[] }> {
  const ids = git(dir, env, 'rev-list', '--reverse', 'HEAD').trim().split('\n').slice(1);
  return ids.map((id) => ({
    subject: git(dir, env, 'log', '-1', '--format=%s', id).trim(),
    body: git(dir, env, 'log', '-1', '--format=%b', id),
    files: git(dir, env, 'show', '--name-only', '--format=', id).trim().split('\n').sort(),
  }));
}

/** husky 9's files: `.husky/_` (git's core.hooksPath) holds stubs that run the person's `.husky/<hook>`. */
export function husky(preCommit: string): Record<string, string> {
  const h = [
    '#!/usr/bin/env sh',
    'n=$(basename "$0")',
    's=$(dirname "$(dirname "$0")")/$n',
    '[ ! -f "$s" ] && exit 0',
    '[ "${HUSKY-}" = "0" ] && exit 0',
    'export PATH="node_modules/.bin:$PATH"',
    'sh -e "$s" "$@"',
    '',
  ].join('\n');
  return {
    '.husky/_/h': h,
    '.husky/_/pre-commit': '#!/usr/bin/env sh\n. "$(dirname "$0")/h"\n',
    '.husky/_/.gitignore': '*\n',
    '.husky/pre-commit': preCommit,
  };
}

/** Turn husky's hooks on in the repository at `dir`, as `husky` (its prepare script) does. */
export function huskyOn(dir: string, env: Record<string, string>): void {
  chmodSync(path.join(dir, '.husky/_/pre-commit'), 0o755);
  git(dir, env, 'config', 'core.hooksPath', '.husky/_');
}
