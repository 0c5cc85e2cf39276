import type { CapabilitySurface } from '../loop/context.js';
import { limitsEvents } from './events.js';
import { limitSettings } from './settings.js';

/** Usage limits, own and shared, and fallback agents: `supervisor.max_limit_wait`, `limit_wait`, `shared_limits`. */
export const limitsSurface = {
  name: 'limits',
  events: limitsEvents,
  open: async (kind, options) => (await import('./capability.js')).limits(kind, options),
  settings: limitSettings,
} satisfies CapabilitySurface;
