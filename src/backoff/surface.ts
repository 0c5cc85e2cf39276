import type { CapabilitySurface } from '../loop/context.js';
import { backoffSettings } from './settings.js';

/** Transient service errors: `supervisor.transient_retries` and `transient_backoff` (capability.ts). */
export const backoffSurface: CapabilitySurface = {
  name: 'backoff',
  open: async (kind, options) => (await import('./capability.js')).backoff(kind, options),
  settings: backoffSettings,
};
