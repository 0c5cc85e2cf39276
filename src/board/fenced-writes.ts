import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { expandPath } from './role-sandbox.js';
import { isWithin, realOr } from '../util/real-path.js';
import { fencedRoles } from './fenced-roles.js';
import { readRole, roleFilePath } from './role.js';

/** Where the fenced agents of a board can write, as real paths, and what to call each place in a message. */
export interface FencedWrites {
  /** The fenced role files, for messages: `roles/implementor.md`. */
  roles: string[];
  places: Array<{ dir: string; name: string }>;
}

/** What of a command lies where a fenced agent can write: its program, or the script an interpreter is given. */
export interface WrittenPart {
  word: string;
  what: 'program' | 'script';
  place: string;
}

// Programs that run a file their arguments name (a shell, an interpreter, a launcher): `sh ./notify.sh`.
const RUNS_A_FILE = new RegExp(
  String.raw`^(sh|bash|dash|zsh|ksh|mksh|fish|busybox|node|nodejs|deno|bun|tsx|ts-node|python|pypy|perl|ruby|php|` +
    String.raw`lua|luajit|rscript|awk|gawk|env|nice|nohup|setsid|timeout|stdbuf|time|ionice|chrt|taskset|sudo|doas|` +
    String.raw`xargs)[\d.]*$`,
  'i',
);

/**
 * Where the fenced agents of the board in `boardDir` can write: the board folder and the paths
 * their roles declare writable (`sandbox: write:`); undefined when no role is fenced. Nothing
 * found there may be run unfenced by the supervisor (SPEC §5c, "Fenced").
 */
export function fencedWrites(boardDir: string, env: NodeJS.ProcessEnv): FencedWrites | undefined {
  const names = fencedRoles(boardDir);
  if (names.length === 0) return undefined;
  const roles = names.map((name) => roleFilePath(name));
  const places = [{ dir: realOr(boardDir), name: 'the board folder' }];
  for (const name of names) {
    const check = readRole(boardDir, name);
    for (const written of (check.role ?? check.draft)?.sandbox?.write ?? []) {
      const file = expandPath(written, boardDir, env.HOME ?? homedir());
      if (file) places.push({ dir: realOr(file), name: `${written} (sandbox: write of ${roleFilePath(name)})` });
    }
  }
  return { roles, places };
}

/**
 * Where anything the board's agents run could have written lies: the board folder (every agent
 * of the board writes there, fenced or not) and the paths its fenced roles declare writable.
 */
export function boardWrites(boardDir: string, env: NodeJS.ProcessEnv): FencedWrites {
  return fencedWrites(boardDir, env) ?? { roles: [], places: [{ dir: realOr(boardDir), name: 'the board folder' }] };
}

/**
 * Where `file` lies among the places of `writes`, symlinks resolved — the file itself when it
 * exists, else its folder, so a file an agent creates later counts; undefined when elsewhere.
 */
export function writablePlace(file: string, writes: FencedWrites): string | undefined {
  // The file itself when it exists, else its folder's real path with its name (created later).
  const real = existsSync(file) ? realOr(file) : path.join(realOr(path.dirname(file)), path.basename(file));
  return writes.places.find(({ dir }) => isWithin(real, dir))?.name;
}

/**
 * The part of a command that lies where a fenced agent can write (reads only): its program as
 * found (`program`, absolute), or — for a shell, an interpreter or a launcher — the script it is
 * given: the first argument naming a file that exists, or a path (a `/` in it) whose folder does.
 * Inline code (`sh -c '…'`) is not read. Relative words are from `cwd`.
 */
export function writtenPart(
  argv: readonly string[],
  program: string,
  cwd: string,
  writes: FencedWrites,
): WrittenPart | undefined {
  const word = argv[0] ?? program;
  const place = writablePlace(program, writes);
  if (place) return { word, what: 'program', place };
  if (!RUNS_A_FILE.test(path.basename(word))) return undefined;
  for (const arg of argv.slice(1).filter(Boolean)) {
    const file = path.resolve(cwd, arg);
    if (!existsSync(file) && !(arg.includes('/') && existsSync(path.dirname(file)))) continue;
    const found = writablePlace(file, writes);
    return found ? { word: arg, what: 'script', place: found } : undefined;
  }
  return undefined;
}

/**
 * The entries of a PATH that lie where a fenced agent can write, or are relative (the working
 * folder: the board's, for agents and hooks), in their order.
 */
export function writablePathEntries(pathValue: string | undefined, writes: FencedWrites): string[] {
  if (!pathValue) return [];
  return pathValue
    .split(path.delimiter)
    .filter((entry) => !path.isAbsolute(entry) || writablePlace(entry, writes) !== undefined);
}

/** The first of writablePathEntries, or undefined. */
export function writablePathEntry(pathValue: string | undefined, writes: FencedWrites): string | undefined {
  return writablePathEntries(pathValue, writes)[0];
}

/**
 * The environment every program the supervisor starts outside a fence gets on a board with a
 * fenced role (agents, hooks, git, bwrap, its own look-ups): PATH without the entries a fenced
 * agent could write into (npx's `<board>/node_modules/.bin` among them), so that no program
 * started by name is one an agent put there (SPEC §5c). `removed` lists what was taken out; the
 * environment is `env` itself when nothing was.
 */
export function outsideWritesEnv(
  boardDir: string,
  env: NodeJS.ProcessEnv,
): { env: NodeJS.ProcessEnv; removed: string[]; writes?: FencedWrites } {
  const writes = fencedWrites(boardDir, env);
  const removed = writes ? writablePathEntries(env.PATH, writes) : [];
  if (!writes || removed.length === 0) return { env, removed, ...(writes && { writes }) };
  const kept = (env.PATH ?? '').split(path.delimiter).filter((entry) => !removed.includes(entry));
  return { env: { ...env, PATH: kept.join(path.delimiter) }, removed, writes };
}
