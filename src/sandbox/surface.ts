import type { CapabilitySurface } from '../loop/context.js';

/** A role's `sandbox:`: its agent runs in a bubblewrap fence (transform.ts), checked before a run (board-checks.ts). */
export const sandboxSurface: CapabilitySurface = {
  name: 'sandbox',
  open: () => undefined,
  async seams() {
    const [{ sandboxFence }, { sandboxChecks }] = await Promise.all([
      import('./transform.js'),
      import('./board-checks.js'),
    ]);
    return { transform: ({ beforeWrap }) => sandboxFence(beforeWrap), checks: sandboxChecks };
  },
};
