import { homedir } from 'node:os';
import type { Settings } from '../board/settings.js';
import { accountOf, type Account } from './account.js';
import { parseSharedLimit, sharedDecision, sharedLimitText, type SharedLimit } from './entry.js';
import { entryPath, limitsFolder, readEntry, removeEntry, writeEntry, type LimitsFolder } from './store.js';

/**
 * A usage limit belongs to the account, not the board (SPEC §4b): a supervisor that learns one
 * records it for the account, and every supervisor of the account looks before calling its CLI.
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

/** The account an invocation runs as, from its own environment, and where its limits are shared. */
export function sharedAccountOf(
  invocation: { file: string; args: readonly string[]; env: Readonly<Record<string, string>>; cwd: string },
  settings: Settings,
  boardDir: string,
  supervisorEnv: NodeJS.ProcessEnv,
): SharedAccount {
  const home = homedir();
  return {
    account: accountOf([invocation.file, ...invocation.args], invocation.env, home, invocation.cwd),
    folder: limitsFolder(settings.sharedLimits, boardDir, supervisorEnv, home),
  };
}

/** Record that the account is limited until `until`, learnt by `board` at `now`; returns a note if it could not be. */
export function recordSharedLimit(
  shared: SharedAccount,
  board: string,
  now: number,
  until: number,
): string | undefined {
  return writeEntry(shared.folder, shared.account, sharedLimitText(shared.account, board, now, until));
}

/** Look at the account's entry before calling its CLI: a limit ahead to wait for, or a note on one ignored (a stale one is removed; one `board` learnt itself, silently). */
export function lookForSharedLimit(shared: SharedAccount, now: number, board: string): SharedLook {
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
