import type { CapabilitySurface } from '../loop/context.js';

/** A missing login stops the run (capability.ts). */
export const loginSurface: CapabilitySurface = {
  name: 'login',
  open: async (kind, options) => (await import('./capability.js')).login(kind, options),
};
