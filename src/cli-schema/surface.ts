import type { CapabilitySurface } from '../loop/context.js';

/** A role's `cli_schema: true`: the reply schema handed to its CLI in the argv (transform.ts). */
export const cliSchemaSurface: CapabilitySurface = {
  name: 'cli-schema',
  open: () => undefined,
  seams: async () => {
    const { cliSchema } = await import('./transform.js');
    return { transform: () => cliSchema };
  },
};
