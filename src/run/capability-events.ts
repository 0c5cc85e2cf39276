import { backoffEvents } from '../backoff/events.js';
import type { CapabilityEvents } from '../events/capability-events.js';
import type { CapabilityEventType } from '../events/parse.js';
import { gitEvents } from '../git/events.js';
import { limitsEvents } from '../limits/events.js';
import { watchEvents } from '../watch/events.js';

/**
 * The event types the capabilities add, and how each is read and shown (each one's events.ts):
 * the commands hand CAPABILITY_EVENTS to the core's readers and views. A capability with event
 * types of its own is a line here; the others (history, budget, time-limit, login, periodic,
 * notifications, hooks) record only the core's.
 */
const LIST = [
  gitEvents, // git_committed
  limitsEvents, // limit_wait, limit_resumed, agent_switched
  backoffEvents, // backoff
  watchEvents, // waiting, woke, edit_invalid
] as const;

/** The list; an event type declared in a capability's folder but missing from it does not compile here. */
export const CAPABILITY_EVENTS: readonly CapabilityEvents[] = everyType<Unlisted<typeof LIST>>(LIST);

// The capabilities' event types a list leaves out.
type Unlisted<L extends readonly CapabilityEvents[]> = Exclude<
  CapabilityEventType,
  { [I in keyof L]: keyof L[I]['types'] }[number]
>;

function everyType<_Lacking extends never>(list: readonly CapabilityEvents[]): readonly CapabilityEvents[] {
  return list;
}
