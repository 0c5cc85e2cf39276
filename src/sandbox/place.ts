import { spawnSync } from 'node:child_process';
import { realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { readRegular } from '../fs/read.js';
import type { FencePlace } from './fence.js';
import { expandPath, type SandboxSpec } from './spec.js';

/**
 * What the fence of an agent run in `boardDir` sees of this machine (reads only): real paths,
 * the board's own files that exist (`own`, board-relative), the repository's git folders,
 * credential sockets.
 */
export function fencePlace(
  boardDir: string,
  own: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
  bwrap: string,
): FencePlace {
  const board = realOr(boardDir);
  const socket = env.SSH_AUTH_SOCK;
  return {
    boardDir: board,
    cwd,
    home: env.HOME ?? homedir(),
    bwrap,
    look,
    gitDirs: [...gitDirs(board), ...hooksDir(board)],
    own: own.flatMap((file) => look(path.join(board, file))?.real ?? []),
    sockets: socket && socket.startsWith('/') ? [socket] : [],
  };
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
 * The folder git runs the repository's hooks from when `core.hooksPath` moves them (husky's
 * `.husky/`, say), which may lie in the board folder: read-only in the fence, or an agent plants
 * a hook the supervisor's own commit runs unfenced. None without git or a repository.
 */
function hooksDir(dir: string): string[] {
  const asked = spawnSync('git', ['rev-parse', '--git-path', 'hooks'], {
    cwd: dir,
    encoding: 'utf8',
    timeout: 5_000,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const hooks = asked.status === 0 ? asked.stdout.trim() : '';
  const found = hooks ? look(path.resolve(dir, hooks)) : undefined;
  return found?.kind === 'dir' ? [found.real] : [];
}

function realOr(dir: string): string {
  return look(dir)?.real ?? path.resolve(dir);
}

/** The declared writable paths that do not exist: not bound, so the agent cannot create them (validate and --dry-run say so). */
export function missingWrites(spec: SandboxSpec, boardDir: string, env: NodeJS.ProcessEnv): string[] {
  return spec.write.filter((written) => {
    const file = expandPath(written, boardDir, env.HOME ?? homedir());
    return file === undefined || look(file) === undefined;
  });
}
