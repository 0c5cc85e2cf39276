import type { CapabilitySurface } from '../loop/context.js';

/** The Manager's `history` (capability.ts). */
export const historySurface: CapabilitySurface = {
  name: 'history',
  open: async (kind, options) => (await import('./capability.js')).history(kind, options),
};
