import { backoffSurface } from '../backoff/surface.js';
import type { BoardCheck } from '../board/check.js';
import type { CapabilityEvents } from '../events/capability-events.js';
import type { CapabilityEventType } from '../events/parse.js';
import { budgetSurface } from '../budget/surface.js';
import { cliSchemaSurface } from '../cli-schema/surface.js';
import { SupervisorError } from '../errors.js';
import { gitSurface } from '../git/surface.js';
import { historySurface } from '../history/surface.js';
import { hooksSurface } from '../hooks/surface.js';
import { limitsSurface } from '../limits/surface.js';
import { loginSurface } from '../login/surface.js';
import { Capabilities } from '../loop/capability-fanout.js';
import type { CapabilitySurface, RunKind, RunOptions, SeamLists } from '../loop/context.js';
import { notificationsSurface } from '../notifications/surface.js';
import { periodicSurface } from '../periodic/surface.js';
import { sandboxSurface } from '../sandbox/surface.js';
import { timeLimitSurface } from '../time-limit/surface.js';
import { watchSurface } from '../watch/surface.js';

/**
 * What a run can do besides SPEC §2 and §4, in the order each event reaches them (the interface
 * is loop/context.ts). Adding a capability is its folder and a line here; removing one, both.
 * Each line is the capability's surface.ts: how it opens, its flags, settings, checks, its change
 * to an agent's invocation and its --dry-run part. The order is each event's, and also:
 * - an invocation's: the reply schema handed to the CLI, then the call's budget (its option after the
 *   schema's: `--json-schema … --max-budget-usd …`), and the fence last: it wraps the whole argv in
 *   bubblewrap and binds the files the others name;
 * - `afterFailure`'s, where the first stop or 'again' wins (loop/README.md).
 */
const LIST = [
  cliSchemaSurface,
  historySurface,
  budgetSurface, // before backoff: a run whose budget is reached stops rather than backing off
  timeLimitSurface,
  gitSurface,
  limitsSurface,
  loginSurface,
  backoffSurface,
  periodicSurface,
  watchSurface,
  notificationsSurface,
  hooksSurface,
  sandboxSurface,
] as const;

export const CAPABILITIES: readonly CapabilitySurface[] = LIST;

/**
 * The event types the capabilities add, and how each is read and shown (each one's events.ts): the
 * commands hand it to the core's readers and views. An event type declared in a capability's folder
 * whose capability is not in the list, or has no `events`, does not compile here.
 */
export const CAPABILITY_EVENTS: readonly CapabilityEvents[] = everyType<Unlisted<typeof LIST>>(
  LIST.flatMap((capability) => (capability.events ? [capability.events] : [])),
);

// The capabilities' event types a list leaves out.
type Unlisted<L extends readonly CapabilitySurface[]> = Exclude<
  CapabilityEventType,
  { [I in keyof L]: L[I] extends { events: CapabilityEvents } ? keyof L[I]['events']['types'] : never }[number]
>;

function everyType<_Lacking extends never>(list: readonly CapabilityEvents[]): readonly CapabilityEvents[] {
  return list;
}

/** The capabilities of a run or a try; a flag one cannot take (a hook not found) throws here, before anything. */
export async function openCapabilities(kind: RunKind, options: RunOptions): Promise<Capabilities> {
  const opened = [];
  for (const { open } of CAPABILITIES) opened.push(await open(kind, options));
  return new Capabilities(opened.flatMap((one) => one ?? []));
}

/**
 * What the capabilities add at the core's seams (loaded here, once per command): what changes an
 * agent run's plain invocation (agent/prepare.ts), in the list's order, and what they add to the
 * board's pre-flight check (board/check.ts: validate, a run's start, --dry-run, the watch, try), new
 * for each check: their `supervisor:` keys read, then each one's own.
 */
export async function loadSeams(beforeWrap?: (boardDir: string) => void): Promise<SeamLists> {
  const seams = await Promise.all(CAPABILITIES.map((capability) => capability.seams?.()));
  const options = beforeWrap ? { beforeWrap } : {};
  return {
    transforms: seams.flatMap((seam) => seam?.transform?.(options) ?? []),
    boardChecks: () => [settingsCheck(), ...seams.flatMap((seam) => seam?.checks?.() ?? [])],
  };
}

// Each capability's `supervisor:` keys, each read on its own, so that every malformed one is listed at its line.
function settingsCheck(): BoardCheck {
  const readers = CAPABILITIES.flatMap((capability) => (capability.settings ? [capability.settings] : []));
  return {
    board(_roles, { name, state, at }) {
      const problems = Object.keys(state.settings).flatMap((key) => {
        try {
          for (const read of readers) read({ [key]: state.settings[key] });
          return [];
        } catch (error) {
          if (!(error instanceof SupervisorError)) throw error;
          const line = at(`/supervisor/${key}`);
          const message = error.message.replace(/^kanban\.yaml: /, '');
          return [{ file: name, ...(line !== undefined && { line }), message }];
        }
      });
      return { problems, warnings: [] };
    },
  };
}
