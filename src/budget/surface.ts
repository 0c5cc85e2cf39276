import { InputError } from '../errors.js';
import type { CapabilitySurface } from '../loop/context.js';
import { budgetSettings } from './settings.js';

/** Spend and budget: --max-cost, `supervisor.max_cost_usd` and `max_tokens` (capability.ts). */
export const budgetSurface: CapabilitySurface = {
  name: 'budget',
  open: async (kind, options) => (await import('./capability.js')).budget(kind, options),
  settings: budgetSettings,
  // The call's budget left, handed to a CLI that takes one (call-budget.ts).
  seams: async () => {
    const { callBudgetOption } = await import('./call-budget.js');
    return { transform: () => callBudgetOption };
  },
  flags: [
    {
      name: 'max-cost',
      type: 'string',
      example: '5',
      usage: '--max-cost USD',
      help: [
        "stop with exit 5 after the attempt that brings the agents' reported cost",
        'to USD dollars (board: supervisor.max_cost_usd; tokens: max_tokens)',
      ],
      check: (value) => ({ max_cost_usd: dollars(value) }),
    },
  ],
};

/** `--max-cost USD`: an amount of US dollars above 0 (a leading $ allowed). */
function dollars(value: string): number {
  const n = Number(value.replace(/^\$/, ''));
  if (value.trim() === '' || !(n > 0) || !Number.isFinite(n))
    throw new InputError(
      `--max-cost must be an amount of US dollars above 0 (got ${JSON.stringify(value)}), e.g. ` +
        `--max-cost 5 or --max-cost 2.50.`,
    );
  return n;
}
