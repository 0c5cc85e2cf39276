import { existsSync } from 'node:fs';
import path from 'node:path';
import { fencedWrites, writablePlace, type FencedWrites } from './fenced-writes.js';

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
