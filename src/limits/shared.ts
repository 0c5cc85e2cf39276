import { homedir } from 'node:os';
import { AGENTS, agentFor } from '../agents/index.js';
import type { Settings } from '../board/settings.js';
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

/** The account an invocation runs as and where its limits are shared; none for a CLI without an adapter. */
export function sharedAccountOf(
  invocation: { file: string; args: readonly string[]; env: Readonly<Record<string, string>>; cwd: string },
  settings: Settings,
  boardDir: string,
  supervisorEnv: NodeJS.ProcessEnv,
): SharedAccount | undefined {
  const command = [invocation.file, ...invocation.args];
  if (!AGENTS.includes(agentFor(command))) return undefined;
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
