import { InputError } from '../errors.js';
import type { CapabilitySurface } from '../loop/context.js';
import { describeTargets, notifyProblem } from '../notify/target.js';
import { durationSetting } from '../board/settings.js';
import { LONGEST_MS } from '../util/duration.js';
import { notifyFlags, notifySettings } from './settings.js';

/** Notifications: --notify, `supervisor.notify` and `notify_wait` (capability.ts; delivery: src/notify/). */
export const notificationsSurface: CapabilitySurface = {
  name: 'notifications',
  open: async (kind, options) => (await import('./capability.js')).notifications(kind, options),
  // notify_wait here; each entry of notify, at its own line, in checks.ts.
  settings: (supervisor) => durationSetting(supervisor, 'notify_wait', LONGEST_MS.clock),
  seams: async () => ({ checks: (await import('./checks.js')).notifyChecks }),
  examples: ['kanban.yaml --notify https://ntfy.sh/my-board-topic --notify desktop'],
  flags: [
    {
      name: 'notify',
      type: 'string',
      multiple: true,
      example: 'https://ntfy.sh/my-board-topic',
      usage: '--notify URL',
      help: [
        "tell a person when the run ends or needs one (repeatable; adds to the board's",
        'supervisor.notify): a Slack webhook, an ntfy topic, any other URL (JSON),',
        'slack+URL / ntfy+URL / json+URL to force a format, desktop, or env:NAME.',
        'Also a usage-limit wait over supervisor.notify_wait (15m) and each --watch',
        'wait. Tried 3 times; the end waits 10 s at most (2 s after a signal); never',
        'changes the exit code.',
      ],
      // Checked like an entry of supervisor.notify; the message masks it. The capability reads --notify itself.
      check: (value) => {
        const problem = notifyProblem(value, '--notify');
        if (problem) throw new InputError(problem);
        return undefined;
      },
    },
  ],
  // Where the run's notifications would go, masked (scheme and host only), whether or not a step is next.
  async dryRun({ settings, flags, given }) {
    const notify = describeTargets(notifySettings(settings.supervisor, { notify: notifyFlags(flags) }).notify, given);
    return { key: 'notify', value: notify, lines: notify.length ? [`Notify: ${notify.join(', ')}`] : [] };
  },
};
