import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { replaceFileAtomic } from '../fs/replace.js';
import { maskDeep } from '../util/secrets.js';

/** What a run waits for while no agent runs: a usage limit to reset, or (resident) a person's edit. */
export interface Waiting {
  for: 'usage_limit' | 'board_change';
  /** Why, in words: the CLI's own message. */
  reason: string;
  since: string;
  /** When the wait ends by itself (a usage limit's reset), if it does. */
  until?: string;
  role?: string;
  task?: string;
  /** The agent CLI whose limit it is. */
  cli?: string;
  /** usage_limit learnt from another supervisor of the account: its kanban.yaml, when it learnt it, and its entry. */
  learntFrom?: string;
  learntAt?: string;
  sharedFile?: string;
  pid: number;
  /** board_change: the outcome a run without --watch would have ended with, and its exit code. */
  outcome?: string;
  exitCode?: number;
  /** board_change: the waiting run's id. */
  run?: string;
  /** board_change: the first problem of the last edit, which does not validate yet (`file:line: message`). */
  invalid?: string;
}

const FILE = '.kanban-supervisor/waiting.json';

/**
 * `.kanban-supervisor/waiting.json`: written while a run waits, so that `status` can say what
 * for and until when, and a run started during a known usage-limit wait waits too instead of
 * hitting the limit again. Removed when the wait is over. A folder or a link planted in its
 * place is refused by `write` (exit 73, naming it) and left alone by `clear`.
 */
export const waitingFile = {
  /** Its board-relative path. */
  name: FILE,
  write(boardDir: string, waiting: Waiting): void {
    // `reason` is a message the run would have ended with: a CLI's words, which may quote a key.
    replaceFileAtomic(boardDir, FILE, `${JSON.stringify(maskDeep(waiting))}\n`, { mode: 0o600 });
  },
  read(boardDir: string): Waiting | undefined {
    try {
      return JSON.parse(readFileSync(path.join(boardDir, FILE), 'utf8')) as Waiting;
    } catch {
      return undefined;
    }
  },
  /** Remove it if it is a file (or a link: removing a link never touches its target); never throws. */
  clear(boardDir: string): void {
    try {
      rmSync(path.join(boardDir, FILE), { force: true });
    } catch {
      // A folder (or something else the person put there) is theirs to remove; a run ending must not fail on it.
    }
  },
};
