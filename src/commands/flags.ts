import { InputError } from '../errors.js';
import type { SettingsFlags } from '../board/settings.js';
import { requireDuration } from '../util/duration.js';
import { notifyProblem } from '../notify/target.js';

/** The setting flags `run` and `try` share, as cli.ts parsed them. */
export interface SettingFlagValues {
  'max-retries'?: string | boolean;
  'max-steps'?: string | boolean;
  timeout?: string | boolean;
  'max-cost'?: string | boolean;
  'max-time'?: string | boolean;
  /** `--notify URL`, repeatable (run only). */
  notify?: string | boolean | string[];
}

/** The settings the flags give, each checked; a bad value is an InputError with an example of a good one. */
export function settingsFlags(flags: SettingFlagValues): SettingsFlags {
  return {
    ...(typeof flags['max-retries'] === 'string' && {
      maxRetries: integerFlag('--max-retries', flags['max-retries'], 0),
    }),
    ...(typeof flags['max-steps'] === 'string' && { maxSteps: integerFlag('--max-steps', flags['max-steps'], 1) }),
    ...(typeof flags.timeout === 'string' && { timeoutMs: requireDuration(flags.timeout, '--timeout') }),
    ...(typeof flags['max-cost'] === 'string' && { maxCostUsd: dollarsFlag(flags['max-cost']) }),
    ...(typeof flags['max-time'] === 'string' && { maxTimeMs: requireDuration(flags['max-time'], '--max-time') }),
    ...(Array.isArray(flags.notify) && flags.notify.length > 0 && { notify: flags.notify.map(notifyFlag) }),
  };
}

/** `--notify URL`: a target, checked like an entry of supervisor.notify; the message masks it. */
function notifyFlag(entry: string): string {
  const problem = notifyProblem(entry, '--notify');
  if (problem) throw new InputError(problem);
  return entry;
}

/** `--max-cost USD`: an amount of US dollars above 0 (a leading $ allowed). */
function dollarsFlag(value: string): number {
  const n = Number(value.replace(/^\$/, ''));
  if (value.trim() === '' || !(n > 0) || !Number.isFinite(n))
    throw new InputError(
      `--max-cost must be an amount of US dollars above 0 (got ${JSON.stringify(value)}), e.g. ` +
        `--max-cost 5 or --max-cost 2.50.`,
    );
  return n;
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
