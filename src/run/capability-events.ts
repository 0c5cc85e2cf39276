import { backoffEvents } from '../backoff/events.js';
import type { CapabilityEvents } from '../events/capability-events.js';
import { gitEvents } from '../git/events.js';
import { limitsEvents } from '../limits/events.js';
import { watchEvents } from '../watch/events.js';

/**
 * The event types the capabilities add, and how each is read and shown (each one's events.ts):
 * the commands hand this list to the core's readers and views. A capability with event types of
 * its own is a line here; the others (history, budget, time-limit, login, periodic, notifications,
 * hooks) record only the core's.
 */
export const CAPABILITY_EVENTS: readonly CapabilityEvents[] = [gitEvents, limitsEvents, backoffEvents, watchEvents];
