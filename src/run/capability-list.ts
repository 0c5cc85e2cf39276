import { backoff } from '../backoff/capability.js';
import { budget } from '../budget/capability.js';
import { gitCommits } from '../git/capability.js';
import { history } from '../history/capability.js';
import { hooks } from '../hooks/capability.js';
import { limits } from '../limits/capability.js';
import { login } from '../login/capability.js';
import { Capabilities } from '../loop/capability-fanout.js';
import type { OpenCapability, RunKind, RunOptions } from '../loop/context.js';
import { notifications } from '../notifications/capability.js';
import { periodic } from '../periodic/capability.js';
import { timeLimit } from '../time-limit/capability.js';
import { watch } from '../watch/capability.js';

/**
 * What a run can do besides SPEC §2 and §4, in the order each event reaches them (the interface
 * is loop/context.ts). Adding a capability is its folder and a line here; removing one, both.
 */
const CAPABILITIES: readonly OpenCapability[] = [
  history,
  budget,
  timeLimit, // before the usage-limit wait a run resumes at its start, which the deadline caps
  gitCommits,
  limits,
  login,
  backoff,
  periodic,
  watch,
  notifications,
  hooks,
];

/** The capabilities of a run or a try; a flag one cannot take (a hook not found) throws here, before anything. */
export async function openCapabilities(kind: RunKind, options: RunOptions): Promise<Capabilities> {
  const opened = [];
  for (const open of CAPABILITIES) opened.push(await open(kind, options));
  return new Capabilities(opened.flatMap((one) => one ?? []));
}
