import type { CapabilitySurface } from '../loop/context.js';
import { sandboxChecks } from './board-checks.js';
import { sandboxFence } from './transform.js';

/** A role's `sandbox:`: its agent runs in a bubblewrap fence (transform.ts), checked before a run (board-checks.ts). */
export const sandboxSurface: CapabilitySurface = {
  name: 'sandbox',
  open: () => undefined,
  transform: ({ beforeWrap }) => sandboxFence(beforeWrap),
  checks: sandboxChecks,
};
