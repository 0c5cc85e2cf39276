import type { CapabilitySurface } from '../loop/context.js';
import { backoffEvents } from './events.js';
import { backoffSettings } from './settings.js';

/** Transient service errors: `supervisor.transient_retries` and `transient_backoff` (capability.ts). */
export const backoffSurface = {
  name: 'backoff',
  events: backoffEvents,
  open: async (kind, options) => (await import('./capability.js')).backoff(kind, options),
  settings: backoffSettings,
} satisfies CapabilitySurface;
