import { spawnSync } from 'node:child_process';
import { lstatSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { homedir, userInfo } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readRegular } from '../fs/safe-read.js';
import { findGit, findProgram, outsidePath } from '../util/process.js';
import { realOr } from '../util/real-path.js';
import type { FencePlace, HostUser } from './fence.js';
import { expandPath, type SandboxSpec } from '../board/role-sandbox.js';
import { credentialStores } from './stores.js';

/**
 * This package's dist/ (dist/sandbox/place.js is one folder down) and the node_modules folders its
 * shipped agents load packages from: its own, or the project's or npx's it was installed into.
 */
export function supervisorFolders(): string[] {
  const dist = fileURLToPath(new URL('..', import.meta.url));
  const modules = ['yaml', 'gray-matter'].map((name) => {
    const entry = fileURLToPath(import.meta.resolve(name));
    return entry.slice(0, entry.lastIndexOf(`${path.sep}node_modules${path.sep}`) + '/node_modules'.length);
  });
  return [...new Set([path.resolve(dist), ...modules])];
}

/**
 * What the fence of an agent run in `boardDir` sees of this machine (reads only): real paths,
 * the board's own files that exist (`own`, board-relative), the repository's git folders, the
 * home folders, the credential stores the agent's environment `env` names, what its
 * `program` needs to start and the files the role file's own `args` name by full path (a script
 * given to `sh`, shown read-only where the fence would cover it), and what bubblewrap can reach as `user`
 * (owner.ts) when given.
 */
export function fencePlace(
  boardDir: string,
  own: string[],
  cwd: string,
  env: Readonly<Record<string, string | undefined>>,
  bwrap: string,
  program: string,
  args: readonly string[],
  user?: HostUser,
): FencePlace {
  const board = realOr(boardDir);
  const home = env.HOME ?? homedir();
  const homes = [home, passwdHome()].flatMap((dir) => (dir && look(dir)?.real) || []).filter((dir) => dir !== '/');
  const found = findProgram(program, env, cwd);
  return {
    boardDir: board,
    cwd,
    home,
    homes,
    bwrap,
    look,
    filesIn,
    gitDirs: [...gitDirs(board), ...gitsOwn(board, env)],
    own: own.flatMap((file) => look(path.join(board, file))?.real ?? []),
    stores: credentialStores(env, cwd),
    unreadable: process.getuid?.() === 0 ? unreadable('/etc') : [],
    needed: [
      // A PATH folder, and beside a `bin` its prefix's `lib` (pip --user's site-packages, npm's global packages).
      ...(env.PATH ?? '')
        .split(':')
        .filter((dir) => dir.startsWith('/'))
        .flatMap((dir) => (path.basename(dir) === 'bin' ? [dir, path.join(path.dirname(dir), 'lib')] : [dir])),
      ...('file' in found ? [installFolder(found.file, homes)] : []),
      // The supervisor's own install, read-only: the shipped agents ({{agents}}) and the packages they load,
      // wherever it is installed (a clone or an npm prefix under /tmp, which the fence otherwise covers).
      ...supervisorFolders(),
      ...commandFiles(args).map((file) => installFolder(file, homes)),
      ...['/etc/resolv.conf'].filter((file) => look(file)?.real.startsWith('/run/')),
    ],
    arch: process.arch,
    ...(user && { user }),
    reaches: (file) => user === undefined || reachable(file, user),
  };
}

/** The files a role's own command words name by full path (a script given to `sh` or `node`). */
export function commandFiles(args: readonly string[]): string[] {
  return args.filter((arg) => path.isAbsolute(arg) && look(arg)?.kind === 'file');
}

/** Whether `user` may search every folder above `file` (by their mode bits; an ACL is not read). */
export function reachable(file: string, user: HostUser): boolean {
  for (let dir = path.dirname(file); ; dir = path.dirname(dir)) {
    const stats = statSync(dir, { throwIfNoEntry: false });
    if (!stats) return false;
    const bit = stats.uid === user.uid ? 0o100 : stats.gid === user.gid ? 0o010 : 0o001;
    if ((stats.mode & bit) === 0) return false;
    if (dir === '/') return true;
  }
}

// The user's home folder as the system knows it, when $HOME says another (a CI job, sudo -E).
function passwdHome(): string | undefined {
  try {
    return userInfo().homedir;
  } catch {
    return undefined; // a uid without a passwd entry, as in many containers
  }
}

/**
 * The folder a program is installed in, from its real path: the nearest folder up holding
 * package.json or pyvenv.cfg (an npm package, a Python venv), short of a home folder; else its own.
 */
function installFolder(program: string, homes: string[]): string {
  const real = look(program)?.real ?? program;
  for (let dir = path.dirname(real); dir !== '/' && !homes.includes(dir); dir = path.dirname(dir))
    if (['package.json', 'pyvenv.cfg'].some((file) => look(path.join(dir, file))?.kind === 'file')) return dir;
  return path.dirname(real);
}

/**
 * What in `dir` (recursively, symlinks not followed) an ordinary user could not read: a fenced
 * agent started by root keeps root's user id, and with it the owner's right to read shadow,
 * ssh host keys, TLS private keys, even without any capability.
 */
function unreadable(dir: string): string[] {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return [];
  }
  return entries.flatMap((name) => {
    const file = path.join(dir, name);
    const stats = lstatSync(file, { throwIfNoEntry: false });
    if (!stats || stats.isSymbolicLink()) return [];
    if (stats.isDirectory()) return (stats.mode & 0o005) === 0o005 ? unreadable(file) : [file];
    return stats.mode & 0o004 ? [] : [file];
  });
}

// Enough for a CLI's own files (settings, a login, its state); a bigger file (a long history) is not copied.
const COPY_MAX_BYTES = 16 * 1024 * 1024;
const COPY_MAX_FILES = 256;

/**
 * The regular files directly in `dir`, links followed, each at most COPY_MAX_BYTES and at most
 * COPY_MAX_FILES of them: what a `copy:` of the folder holds (bubblewrap keeps each in memory).
 */
function filesIn(dir: string): Array<{ name: string; real: string }> {
  let names: string[];
  try {
    names = readdirSync(dir).sort();
  } catch {
    return [];
  }
  return names
    .flatMap((name) => {
      const found = look(path.join(dir, name));
      if (found?.kind !== 'file') return [];
      const stats = statSync(found.real, { throwIfNoEntry: false });
      return stats?.isFile() && stats.size <= COPY_MAX_BYTES ? [{ name, real: found.real }] : [];
    })
    .slice(0, COPY_MAX_FILES);
}

// What is at a path, symlinks followed; undefined when nothing (or a dangling link) is there.
function look(file: string): { real: string; kind: 'dir' | 'file' } | undefined {
  try {
    const real = realpathSync(file);
    return { real, kind: statSync(real).isDirectory() ? 'dir' : 'file' };
  } catch {
    return undefined;
  }
}

/**
 * The git folders of the repository holding `dir`: the nearest .git up the tree and, when it
 * is a worktree's .git file, the folder it names and that folder's common folder (with the hooks).
 */
export function gitDirs(dir: string): string[] {
  for (let at = dir; ; at = path.dirname(at)) {
    const found = look(path.join(at, '.git'));
    if (found?.kind === 'dir') return [found.real];
    if (found) return [found.real, ...pointed(found.real, 'gitdir: ')];
    if (path.dirname(at) === at) return [];
  }
}

// A worktree's .git file names its git folder; that folder's commondir names the shared one.
function pointed(file: string, prefix: string): string[] {
  let text: string | undefined;
  try {
    text = readRegular(file, file, { maxBytes: 4096 });
  } catch {
    return [];
  }
  const line = text?.split('\n')[0]?.trim() ?? '';
  const target = look(path.resolve(path.dirname(file), line.startsWith(prefix) ? line.slice(prefix.length) : line));
  if (target?.kind !== 'dir') return [];
  return [target.real, ...(prefix === '' ? [] : pointed(path.join(target.real, 'commondir'), ''))];
}

/**
 * The git folders of the repository holding `dir` as git itself resolves them — its git folder,
 * the common one, and the hooks folder (`core.hooksPath` may move it into the board folder, as
 * husky does) — by `git rev-parse`, run as the supervisor's own git is (never a git in the board
 * folder, no fsmonitor). The file system's reading of .git (gitDirs) can differ from git's: a .git
 * that is a symlink to a gitfile with a relative `gitdir:` is read by git from where the link is,
 * not from where it leads, and the folder git then uses must be the one kept read-only, or an
 * agent's filter or hook in its config runs in the supervisor's commit. `safe.directory=*`: a board
 * folder another user owns (the fenced agent's own, run by root) is still a repository to protect.
 * None without git or a repository.
 */
function gitsOwn(dir: string, env: Readonly<Record<string, string | undefined>>): string[] {
  const git = findGit(env, dir);
  if (git === undefined) return [];
  const pinned = ['core.fsmonitor=false', 'safe.directory=*'].flatMap((option) => ['-c', option]);
  const asked = spawnSync(
    git,
    [...pinned, 'rev-parse', '--absolute-git-dir', '--git-common-dir', '--git-path', 'hooks'],
    {
      cwd: dir,
      env: { ...env, PATH: outsidePath(env.PATH, dir) },
      encoding: 'utf8',
      timeout: 5_000,
      stdio: ['ignore', 'pipe', 'ignore'],
    },
  );
  if (asked.status !== 0) return [];
  return asked.stdout
    .split('\n')
    .filter(Boolean)
    .flatMap((found) => {
      const real = look(path.resolve(dir, found));
      return real?.kind === 'dir' ? [real.real] : [];
    });
}

/**
 * The declared paths that are not bound, and why: they do not exist (the agent cannot see or
 * create them), or the fenced agent's host user (`user`, owner.ts) cannot reach them — a path
 * under root's 0700 home, when root runs the supervisor. validate and --dry-run say so.
 */
export function missingPaths(
  spec: SandboxSpec,
  boardDir: string,
  env: NodeJS.ProcessEnv,
  user?: HostUser,
): Array<{ written: string; how: 'writable' | 'readable' | 'copied'; unreachable?: true }> {
  const declared = [
    ...spec.write.map((written) => ({ written, how: 'writable' as const })),
    ...spec.read.map((written) => ({ written, how: 'readable' as const })),
    ...(spec.copy ?? []).map((written) => ({ written, how: 'copied' as const })),
  ];
  return declared.flatMap((entry) => {
    const file = expandPath(entry.written, boardDir, env.HOME ?? homedir());
    const found = file === undefined ? undefined : look(file);
    if (!found) return [entry];
    return user && !reachable(found.real, user) ? [{ ...entry, unreachable: true as const }] : [];
  });
}
