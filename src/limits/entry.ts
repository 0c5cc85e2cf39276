import { isObject, parse } from '../reply/json.js';
import type { Account } from './account.js';

/** One account's shared limit, as its file holds it: what any supervisor of the account waits for. */
export interface SharedLimit {
  cli: string;
  /** The account in words (Account.description), never a secret. */
  account: string;
  /** When the account may be called again (ISO): the reset the CLI gave, plus the margin. */
  until: string;
  /** The kanban.yaml whose supervisor learnt it. */
  board: string;
  /** When it was learnt (ISO). */
  since: string;
}

/** What to do with an account's entry before calling its CLI: wait until `until`, or ignore it for a `reason`. */
export type SharedDecision =
  | { wait: true; until: number; entry: SharedLimit }
  | { wait: false; reason: string; stale: boolean; entry?: SharedLimit };

// An entry further off than this is no reset a CLI means (a planted or mangled file).
const ABSURD_MS = 366 * 86_400_000;
const FIELDS = ['cli', 'account', 'until', 'board', 'since'] as const;

/** The entry `text` holds, or why it is none (pure). */
export function parseSharedLimit(text: string): SharedLimit | string {
  const value = parse(text.trim());
  if (!isObject(value)) return 'not a JSON object';
  const missing = FIELDS.find((field) => typeof value[field] !== 'string');
  if (missing) return `no string "${missing}"`;
  if (!Number.isFinite(Date.parse(value.until as string))) return `"until" is no time (${JSON.stringify(value.until)})`;
  return Object.fromEntries(FIELDS.map((field) => [field, value[field]])) as unknown as SharedLimit;
}

/**
 * Whether an account's entry makes a supervisor wait before calling the CLI (pure): only a
 * well-formed entry of this very account whose time is ahead, and less than a year ahead.
 */
export function sharedDecision(parsed: SharedLimit | string, account: Account, now: number): SharedDecision {
  if (typeof parsed === 'string') return { wait: false, reason: `broken: ${parsed}`, stale: false };
  if (parsed.cli !== account.cli || parsed.account !== account.description)
    return { wait: false, reason: `broken: it names another account (${parsed.account})`, stale: false };
  const until = Date.parse(parsed.until);
  if (until <= now)
    return { wait: false, reason: `stale: its limit ended at ${parsed.until}`, stale: true, entry: parsed };
  if (until - now > ABSURD_MS)
    return { wait: false, reason: `broken: its limit ends more than a year ahead (${parsed.until})`, stale: false };
  return { wait: true, until, entry: parsed };
}

/** The text of an account's entry, learnt by `board` at `now`, lasting until `until`. */
export function sharedLimitText(account: Account, board: string, now: number, until: number): string {
  const entry: SharedLimit = {
    cli: account.cli,
    account: account.description,
    until: new Date(until).toISOString(),
    board,
    since: new Date(now).toISOString(),
  };
  return `${JSON.stringify(entry, null, 2)}\n`;
}
