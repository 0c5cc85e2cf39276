import type { SettingsFlags } from '../board/settings.js';
import type { CapabilitySurface } from '../loop/context.js';
import { InputError } from '../errors.js';
import { requireDuration } from '../util/duration.js';

/** The setting flags `run` and `try` share, as cli.ts parsed them; a capability's own flags by name. */
export interface SettingFlagValues {
  'max-retries'?: string | boolean;
  'max-steps'?: string | boolean;
  timeout?: string | boolean;
  [flag: string]: unknown;
}

/**
 * The settings the flags give, each checked: the core's, and the `supervisor:` keys the capabilities'
 * flags set (`--max-cost 5` is `max_cost_usd: 5`). A bad value is an InputError with an example of a good one.
 */
export function settingsFlags(
  flags: SettingFlagValues,
  capabilities: readonly CapabilitySurface[] = [],
): SettingsFlags {
  const supervisor = {};
  for (const flag of capabilities.flatMap((capability) => capability.flags ?? [])) {
    const given = flags[flag.name];
    for (const value of Array.isArray(given) ? given : [given])
      if (typeof value === 'string') Object.assign(supervisor, flag.check?.(value));
  }
  return {
    ...(typeof flags['max-retries'] === 'string' && {
      maxRetries: integerFlag('--max-retries', flags['max-retries'], 0),
    }),
    ...(typeof flags['max-steps'] === 'string' && { maxSteps: integerFlag('--max-steps', flags['max-steps'], 1) }),
    ...(typeof flags.timeout === 'string' && { timeoutMs: requireDuration(flags.timeout, '--timeout') }),
    ...(Object.keys(supervisor).length > 0 && { supervisor }),
  };
}

/** A whole-number flag of at least `min`. */
export function integerFlag(name: string, value: string, min: number): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isInteger(n) || n < min)
    throw new InputError(
      `${name} must be a whole number >= ${min} (got ${JSON.stringify(value)}), e.g. ${name} ${min + 2}.`,
    );
  return n;
}
