import path from 'node:path';
import { notifyFlags, notifySettings } from './settings.js';
import type { Capability, OpenCapability } from '../loop/context.js';
import type { Notifier } from '../notify/notifier.js';
import { resolveTargets, unsetWarning } from '../notify/target.js';
import { writeIfOpen } from '../util/write-if-open.js';

/**
 * Notifications (SPEC §5c, "Heard"; delivery is src/notify/): a long usage-limit wait, a
 * resident run's wait for a person, and the end of a run, told to `supervisor.notify` and
 * `--notify`. `env:NAME` entries are read here; a --notify one whose variable is unset is warned
 * of (the board's are validate's warnings). A failed delivery is one warning line on stderr and a
 * Warning in supervisor.log.md, its URL masked; nothing here changes the run's exit code. What
 * sends is loaded only when a target is there: a board with nothing to run starts without it.
 */
export const notifications: OpenCapability = (kind, options): Capability | undefined => {
  if (kind !== 'run') return undefined;
  const env = options.io?.env ?? process.env;
  const stderr = options.io?.stderr ?? process.stderr;
  const flags = notifyFlags(options.flags ?? {});
  const say = (message: string) => writeIfOpen(stderr, `kanban-supervisor: warning: ${message}\n`);
  let file = path.resolve(options.file);
  let notifier: Notifier | undefined;
  // The board's own list once it is read; the --notify ones whatever happens.
  const open = async (board: readonly string[], waitThresholdMs: number) => {
    const entries = [
      ...board.map((entry, i) => ({ entry, where: `supervisor.notify[${i}]` })),
      ...flags.map((entry) => ({ entry, where: '--notify' })),
    ];
    const { targets, unset } = resolveTargets(entries, env);
    for (const { name, where } of unset) if (where === '--notify') say(unsetWarning(name, where));
    if (targets.length === 0) return undefined;
    const [{ Notifier }, { appendEntry }] = await Promise.all([
      import('../notify/notifier.js'),
      import('../log/supervisor-log.js'),
    ]);
    const warn = (message: string): void => {
      say(message);
      try {
        appendEntry(path.dirname(file), {
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
    return new Notifier(targets, { file, waitThresholdMs, warn });
  };
  let opened = false;
  return {
    async boardRead(board) {
      const wanted = notifySettings(board.settings, {});
      file = board.file;
      notifier = await open(wanted.notify, wanted.notifyWaitMs);
      opened = true;
    },
    event: (event) => notifier?.listener(event),
    async runEnded(ending) {
      // A board found finished tells nobody (a scheduler starting it again would page a person each
      // time); a board another run holds was not run: that run tells its own end.
      if (ending.nothingToRun || ending.outcome.kind === 'locked') return;
      // The board could not be read (or its list was refused): the --notify ones still hear of it.
      if (!opened) notifier = await open([], notifySettings({}, {}).notifyWaitMs);
      notifier?.end(ending.outcome, ending.line, { file: ending.file, task: '', run: '' });
      await notifier?.flush(); // at most notify/notifier.ts FLUSH_CAP_MS
    },
  };
};
