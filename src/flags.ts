import { InputError } from './errors.js';
import type { SettingsFlags } from './settings.js';
import { requireDuration } from './util/duration.js';

/** The setting flags `run` and `try` share, as cli.ts parsed them. */
export interface SettingFlagValues {
  'max-retries'?: string | boolean;
  'max-steps'?: string | boolean;
  timeout?: string | boolean;
}

/** The settings the flags give, each checked; a bad value is an InputError with an example of a good one. */
export function settingsFlags(flags: SettingFlagValues): SettingsFlags {
  return {
    ...(typeof flags['max-retries'] === 'string' && { maxRetries: integerFlag('--max-retries', flags['max-retries'], 0) }),
    ...(typeof flags['max-steps'] === 'string' && { maxSteps: integerFlag('--max-steps', flags['max-steps'], 1) }),
    ...(typeof flags.timeout === 'string' && { timeoutMs: requireDuration(flags.timeout, '--timeout') }),
  };
}

/** A whole-number flag of at least `min`. */
export function integerFlag(name: string, value: string, min: number): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isInteger(n) || n < min) throw new InputError(`${name} must be a whole number >= ${min} (got ${JSON.stringify(value)}), e.g. ${name} ${min + 2}.`);
  return n;
}
