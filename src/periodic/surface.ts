import type { CapabilitySurface } from '../loop/context.js';
import { periodicRoles } from './settings.js';

/** `supervisor.periodic`: roles run after every N completed steps (capability.ts). */
export const periodicSurface: CapabilitySurface = {
  name: 'periodic',
  open: async (kind, options) => (await import('./capability.js')).periodic(kind, options),
  settings: periodicRoles,
  seams: async () => ({ checks: (await import('./checks.js')).periodicChecks }),
  settingsHelp: 'periodic (roles run after every N completed steps, their reply to the Manager with trigger)',
};
