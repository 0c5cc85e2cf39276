import { lstatSync, readlinkSync } from 'node:fs';
import { isRunOutput, parseStatus, quotedPaths } from './porcelain.js';
import { runGit, type GitCall, type GitResult } from './run-git.js';

/** A file larger than this is noted by what lstat says of it, never read: a sparse file of a terabyte costs no disk. */
export const HASHED_MAX = 64 * 1024 * 1024;

/** What a path holds now (see pathState); `hashed` when its content is to be added by `git hash-object`. */
export interface PathState {
  state: string;
  /** The state to keep when the content cannot be hashed (the file went away, or changed kind). */
  seen: string;
  hashed: boolean;
}

/**
 * What a work-tree path holds now, as a string that changes when git would see a change,
 * without reading it: a link's target, `gone`, `dir` (a nested repository, never looked into);
 * a regular file's executable bit and, above HASHED_MAX, its inode, size, mtime and ctime (which
 * any write changes, and no one can set back). A regular file up to HASHED_MAX is `hashed`:
 * its content is hashed by git, in a bounded child (step-commits.ts), not here on the main thread.
 * `file` is a byte string (latin1) relative to `top`. Never follows a link, never opens anything.
 */
export function pathState(top: string, file: string): PathState {
  const full = Buffer.concat([Buffer.from(`${top}/`), Buffer.from(file, 'latin1')]);
  let stats;
  try {
    stats = lstatSync(full, { bigint: true });
  } catch {
    return { state: 'gone', seen: 'gone', hashed: false };
  }
  const seen = `${stats.ino}:${stats.size}:${stats.mtimeNs}:${stats.ctimeNs}`;
  const only = (state: string): PathState => ({ state, seen: state, hashed: false });
  if (stats.isSymbolicLink()) return only(`link:${readlinkSync(full, { encoding: 'buffer' }).toString('hex')}`);
  if (stats.isDirectory()) return only('dir');
  if (!stats.isFile()) return only(`other:${stats.mode}:${seen}`);
  const kind = `file:${stats.mode & 0o111n ? 'x' : '-'}`;
  if (stats.size > HASHED_MAX) return only(`${kind}:${seen}`);
  return { state: kind, seen: `${kind}:${seen}`, hashed: true };
}

/**
 * The work tree as git sees it: every path that differs from HEAD, with what it holds; or the git command that failed.
 */
export type TreeStates = Map<string, string> | { what: string; result: GitResult };

/**
 * Every path git sees changed against HEAD (tracked or not, not ignored), but the supervisor's
 * own output, with what it holds. git never looks into a submodule (a folder is `dir` anyway: a
 * submodule's new commit is the person's to commit). Contents are hashed by one `git hash-object
 * --no-filters` (no filter of the repository's runs), bounded like every git command: stopped at
 * supervisor.git_timeout and at the run's stop, so a signal or --max-time ends it at once.
 */
export async function treeStates(top: string, board: string, call: GitCall): Promise<TreeStates> {
  const status = await runGit(
    ['status', '--porcelain=v1', '-z', '--untracked-files=all', '--no-renames', '--ignore-submodules=all'],
    { ...call, env: { ...call.env, GIT_OPTIONAL_LOCKS: '0' } },
  );
  if (status.code !== 0 || status.stopped !== null) return { what: 'git status', result: status };
  const noted = parseStatus(status.stdout)
    .filter((file) => !isRunOutput(file, board))
    .map((file) => [file, pathState(top, file)] as const);
  const hashed = noted.filter(([, state]) => state.hashed).map(([file]) => file);
  const ids = new Map<string, string>();
  if (hashed.length > 0) {
    const run = await runGit(['hash-object', '--no-filters', '--stdin-paths'], call, quotedPaths(hashed));
    if (run.stopped !== null) return { what: 'git hash-object', result: run };
    // One id a line, in order, up to a file it could not read (gone since): the rest keep what lstat saw.
    run.stdout.split('\n').forEach((id, i) => /^[0-9a-f]{40,64}$/.test(id) && ids.set(hashed[i] as string, id));
  }
  return new Map(noted.map(([file, state]) => [file, ids.has(file) ? `${state.state}:${ids.get(file)}` : state.seen]));
}
