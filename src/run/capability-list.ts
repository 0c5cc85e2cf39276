import { backoffSurface } from '../backoff/surface.js';
import { budgetSurface } from '../budget/surface.js';
import { gitSurface } from '../git/surface.js';
import { historySurface } from '../history/surface.js';
import { hooksSurface } from '../hooks/surface.js';
import { limitsSurface } from '../limits/surface.js';
import { loginSurface } from '../login/surface.js';
import type { SettingsReader } from '../board/check.js';
import { Capabilities } from '../loop/capability-fanout.js';
import type { CapabilitySurface, RunKind, RunOptions } from '../loop/context.js';
import { notificationsSurface } from '../notifications/surface.js';
import { periodicSurface } from '../periodic/surface.js';
import { timeLimitSurface } from '../time-limit/surface.js';
import { watchSurface } from '../watch/surface.js';

/**
 * What a run can do besides SPEC §2 and §4, in the order each event reaches them (the interface
 * is loop/context.ts). Adding a capability is its folder and a line here; removing one, both.
 * Each line is the capability's surface.ts: its flags, settings and --dry-run part, and how it opens.
 */
export const CAPABILITIES: readonly CapabilitySurface[] = [
  historySurface,
  budgetSurface, // before backoff: a run whose budget is reached stops rather than backing off (loop/README.md)
  timeLimitSurface,
  gitSurface,
  limitsSurface,
  loginSurface,
  backoffSurface,
  periodicSurface,
  watchSurface,
  notificationsSurface,
  hooksSurface,
];

/** The capabilities of a run or a try; a flag one cannot take (a hook not found) throws here, before anything. */
export async function openCapabilities(kind: RunKind, options: RunOptions): Promise<Capabilities> {
  const opened = [];
  for (const { open } of CAPABILITIES) opened.push(await open(kind, options));
  return new Capabilities(
    opened.flatMap((one) => one ?? []),
    settingsReaders(),
  );
}

/** The capabilities' readers of their `supervisor:` keys, for the board's checks (validate, a run's pre-flight). */
export function settingsReaders(): SettingsReader[] {
  return CAPABILITIES.flatMap((capability) => (capability.settings ? [capability.settings] : []));
}
