import path from 'node:path';
import { appendEntry } from '../log/supervisor-log.js';
import { writeIfOpen } from '../util/write.js';
import { Notifier, type NotifierOptions } from '../notify/notifier.js';
import { resolveTargets, unsetWarning } from '../notify/target.js';

/** What a `run` knows of its notifications: the board's entries, the --notify ones, the wait worth telling of. */
export interface RunNotify {
  /** kanban.yaml, absolute. */
  file: string;
  board: readonly string[];
  flags: readonly string[];
  waitThresholdMs: number;
  env: NodeJS.ProcessEnv;
  stderr: NodeJS.WritableStream;
  /** Replaceable for tests; the real ones otherwise. */
  deps?: NotifierOptions['deps'];
}

/**
 * The notifier of a run, or undefined when notifications go nowhere. `env:NAME` entries are read
 * here; a --notify one whose variable is unset is warned of (the board's are validate's warnings).
 * A failed delivery is one warning line on stderr and a Warning in supervisor.log.md, URL masked.
 */
export function runNotifier(options: RunNotify): Notifier | undefined {
  if (options.board.length === 0 && options.flags.length === 0) return undefined;
  const entries = [
    ...options.board.map((entry, i) => ({ entry, where: `supervisor.notify[${i}]` })),
    ...options.flags.map((entry) => ({ entry, where: '--notify' })),
  ];
  const { targets, unset } = resolveTargets(entries, options.env);
  const say = (message: string) => writeIfOpen(options.stderr, `kanban-supervisor: warning: ${message}\n`);
  for (const { name, where } of unset) if (where === '--notify') say(unsetWarning(name, where));
  if (targets.length === 0) return undefined;
  const warn = (message: string): void => {
    say(message);
    try {
      appendEntry(path.dirname(options.file), {
        time: new Date(),
        kind: 'Warning',
        agent: 'kanban-supervisor',
        task: '(notifications)',
        issue: `Notification not delivered: ${message}`,
        action: 'Nothing changes for the run',
      });
    } catch {
      // An unwritable board is what the run ends with; the stderr line has told it.
    }
  };
  return new Notifier(targets, {
    file: options.file,
    waitThresholdMs: options.waitThresholdMs,
    warn,
    ...(options.deps && { deps: options.deps }),
  });
}
