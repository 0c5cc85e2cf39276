import type { CapabilitySurface } from '../loop/context.js';
import { watchEvents } from './events.js';
import { watchPollMs } from './settings.js';

/** --watch, and `supervisor.watch_poll` (capability.ts, README.md here). */
export const watchSurface = {
  name: 'watch',
  events: watchEvents,
  open: async (kind, options) => (await import('./capability.js')).watch(kind, options),
  settings: watchPollMs,
  settingsHelp: 'watch_poll (how often --watch also compares the files itself; default 5s)',
  examples: ['kanban.yaml --watch'],
  flags: [
    {
      name: 'watch',
      type: 'boolean',
      usage: '--watch',
      help: [
        'stay resident where the run would end (done, halted, retries exhausted,',
        'a guard or budget stop, a missing login, a long usage limit): hold the',
        'lock, say what it waits for (.kanban-supervisor/waiting.json), and carry on',
        'when a person edits kanban.yaml, a task or a role file and it validates.',
        'Ends with Ctrl-C / SIGTERM (130 / 143). Not with --once.',
      ],
    },
  ],
} satisfies CapabilitySurface;
