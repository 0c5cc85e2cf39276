import type { CapabilitySurface } from '../loop/context.js';
import { LONGEST_MS, requireDuration } from '../util/duration.js';
import { maxTimeMs } from './settings.js';

/** A batch job's time budget: --max-time and `supervisor.max_time` (capability.ts). */
export const timeLimitSurface: CapabilitySurface = {
  name: 'time-limit',
  open: async (kind, options) => (await import('./capability.js')).timeLimit(kind, options),
  settings: maxTimeMs,
  flags: [
    {
      name: 'max-time',
      type: 'string',
      example: '8h',
      usage: '--max-time DUR',
      help: [
        "a batch job's time budget: by then the run stops like an interrupt (the",
        'agent stopped, the board unchanged) with exit 124; a usage limit that',
        'resets later ends it at once with exit 69 (board: supervisor.max_time)',
      ],
      check: (value) => {
        requireDuration(value, '--max-time', LONGEST_MS.clock);
        return { max_time: value };
      },
    },
  ],
};
