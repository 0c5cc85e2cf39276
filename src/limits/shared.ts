import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { AGENTS, agentFor, programWord } from '../agents/index.js';
import { boardWrites, writablePlace, type FencedWrites } from '../board/fenced-writes.js';
import { findProgram } from '../util/process.js';
import type { LimitSettings } from './settings.js';
import { accountOf, type Account } from './account.js';
import { parseSharedLimit, sharedDecision, sharedLimitText, type SharedLimit } from './entry.js';
import {
  entryPath,
  limitsFolder,
  readEntry,
  refuseUntrusted,
  removeEntry,
  writeEntry,
  type LimitsFolder,
} from './shared-folder.js';

/**
 * A usage limit belongs to the account, not the board (SPEC §4b): a supervisor that learns one
 * records it for the account, and every supervisor of the account looks before calling its CLI.
 * Only where the account is known (SPEC §5c): a CLI with an adapter (src/agents/) and its login.
 * Any other command's "account" would be a guess (its program and HOME): its limits stay on its board.
 */

/** An agent run's account and the folder its limits are shared in. */
export interface SharedAccount {
  account: Account;
  folder: LimitsFolder;
}

/** What the account's entry says before an attempt: a limit to wait for, and/or a note on an entry ignored. */
export interface SharedLook {
  limit?: { until: number; entry: SharedLimit; file: string };
  ignored?: string;
}

/**
 * The account an invocation runs as and where its limits are shared; none for a CLI without an
 * adapter, nor for a program the board could have made (boardMade): a script named `claude.mjs`
 * is no Claude Code, and its limits are no other board's to wait for.
 */
export function sharedAccountOf(
  invocation: { file: string; args: readonly string[]; env: Readonly<Record<string, string>>; cwd: string },
  settings: LimitSettings,
  boardDir: string,
  supervisorEnv: NodeJS.ProcessEnv,
): SharedAccount | undefined {
  const command = [invocation.file, ...invocation.args];
  if (!AGENTS.includes(agentFor(command))) return undefined;
  if (boardMade(command, invocation.env, invocation.cwd, boardWrites(boardDir, supervisorEnv))) return undefined;
  const home = homedir();
  return {
    account: accountOf(command, invocation.env, home, invocation.cwd),
    folder: limitsFolder(settings.sharedLimits, boardDir, supervisorEnv, home),
  };
}

/**
 * Record that the account is limited until `until`, learnt by `board` at `now`; returns a note
 * if it could not be. A folder others could write is refused (exit 2).
 */
export function recordSharedLimit(
  shared: SharedAccount,
  board: string,
  now: number,
  until: number,
): string | undefined {
  refuseUntrusted(shared.folder, shared.account);
  return writeEntry(shared.folder, shared.account, sharedLimitText(shared.account, board, now, until));
}

/**
 * Look at the account's entry before calling its CLI: a limit ahead to wait for, or a note on one
 * ignored (a stale one is removed; one `board` learnt itself, silently). An entry or a folder
 * others could have written is refused (exit 2).
 */
export function lookForSharedLimit(shared: SharedAccount, now: number, board: string): SharedLook {
  refuseUntrusted(shared.folder, shared.account);
  const read = readEntry(shared.folder, shared.account);
  if (read === undefined) return {};
  const file = entryPath(shared.folder, shared.account);
  if (typeof read === 'string') return { ignored: read };
  const decision = sharedDecision(parseSharedLimit(read.text), shared.account, now);
  if (decision.wait) return { limit: { until: decision.until, entry: decision.entry, file } };
  // A limit over is no use to anyone: removed, unless a fresh one replaced it meanwhile.
  if (decision.stale) removeEntry(shared.folder, shared.account, read);
  // This board's own limit, just waited out: nothing a person needs to hear of.
  if (decision.entry?.board === board) return {};
  return { ignored: `${file}: ${decision.reason}` };
}

/**
 * Whether the CLI a command runs is, by its real path, in the board folder or a path a fenced
 * agent writes (or not found at all): its program as found on the agent's PATH; behind a launcher,
 * the script it is given, or for a package name the `node_modules/.bin` npx would look in first.
 */
function boardMade(
  command: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  cwd: string,
  writes: FencedWrites,
): boolean {
  const found = findProgram(command[0] ?? '', env, cwd);
  if (!('file' in found) || writablePlace(found.file, writes) !== undefined) return true;
  const word = programWord(command);
  if (!word || word.index === 0) return false;
  // A script (`./claude.mjs`, `/opt/x/cli.js`), not a package name (`@openai/codex@1`).
  if (!word.name.startsWith('@') && (word.name.includes('/') || /\.[cm]?js$/.test(word.name)))
    return writablePlace(path.resolve(cwd, word.name), writes) !== undefined;
  for (let dir = cwd; ; dir = path.dirname(dir)) {
    const local = [path.join(dir, 'node_modules', '.bin', word.base), path.join(dir, 'node_modules', word.name)];
    if (local.some((file) => existsSync(file) && writablePlace(file, writes) !== undefined)) return true;
    if (dir === path.dirname(dir)) return false;
  }
}
