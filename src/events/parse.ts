import type { EventFields, EventHead, EventType, EventUsage, UnknownEvent } from '../event-types.js';

/**
 * The event on one line of events.jsonl, or undefined for a line that holds none (pure).
 * A line cut short by a crash is skipped; when the next run appended its first event to
 * that same line, the appended event is kept: every event is written as `{"time":…` first.
 * The file is untrusted: a line is checked here, once, against its kind's fields (EventFields),
 * and readers take the types as they are. A kind this version does not know, or a line missing
 * a field the readers need (or holding it as another type), is an UnknownEvent: its run and
 * time count, nothing else. Any other field of another type is left out; fields the readers do
 * not read pass through unchecked, and the read types (ReadOf) do not show them.
 */
export function parseEvent(text: string, more: MoreChecks): ReadEvent | undefined {
  const event = asEvent(text, more);
  if (event) return event;
  const appended = text.lastIndexOf('{"time":');
  return appended > 0 ? asEvent(text.slice(appended), more) : undefined;
}

function asEvent(text: string, more: MoreChecks): ReadEvent | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const line = value as Record<string, unknown>;
  const { time, type, run } = line;
  if (typeof time !== 'string' || typeof type !== 'string' || typeof run !== 'string') return undefined;
  const unknown: UnknownEvent = { time, type: 'unknown', run, named: type };
  const checks: FieldChecks | undefined = Object.hasOwn(CHECKS, type) ? CHECKS[type as CoreType] : more.get(type);
  if (!checks) return unknown;
  return fieldsCheck(checks, line) ? (line as unknown as ReadOf<EventType>) : unknown;
}

/** The events on lines, in the lines' order; lines that hold none are skipped. */
export function* parseEvents(lines: Iterable<{ text: string }>, more: MoreChecks): Generator<ReadEvent> {
  for (const line of lines) {
    const event = parseEvent(line.text, more);
    if (event) yield event;
  }
}

/**
 * A reader of one top-level string field of event lines that does not parse them (pure): it
 * gives the value, or undefined when that cannot be told for sure. Sure means: no `{` or `[`
 * comes before the key, so it is at the top level, and the value has no escapes. A quote
 * inside a JSON string is always escaped, so `"key":"` can only be a key, never text in a value.
 */
export function fieldPeeker(key: string): (text: string) => string | undefined {
  if (!/^\w+$/.test(key)) throw new Error(`fieldPeeker: ${JSON.stringify(key)} is not a plain key`);
  // Not global: a pattern without the g flag keeps no state between calls.
  const field = new RegExp(`"${key}":"([^"]*)"`);
  return (text) => {
    const match = field.exec(text);
    const value = match?.[1];
    // Index 0 is the event's own brace; any other before the key could open a nested object.
    if (value === undefined || value.includes('\\') || /[{[]/.test(text.slice(1, match?.index))) return undefined;
    return value;
  };
}

/** A check of a field a reader needs: a line whose field is missing or of another type is an UnknownEvent. */
export type Check<V> = (value: unknown) => value is V;
/** A check of a field a reader does without: a value of another type is left out, not the event. */
export interface Optional<V> {
  optional: Check<V>;
}
/**
 * Checks of the fields readers read, each as EventFields types it: a field always written may
 * be checked as optional (lines written before it was, test histories), one written only
 * sometimes must be. The compiler holds this table to EventFields.
 */
export type Checks<F> = {
  [K in keyof F]?: object extends Pick<F, K> ? Optional<Exclude<F[K], undefined>> : Check<F[K]> | Optional<F[K]>;
};
/** The checks of one event type's fields, untyped: what parseEvent runs. */
export type FieldChecks = Record<string, Check<unknown> | Optional<unknown>>;
/** The checks of the event types the capabilities add, by type (events/capability-events.ts gathers them). */
export type MoreChecks = ReadonlyMap<string, FieldChecks>;

/**
 * The checks of each event type, as types: the core's (CHECKS below), and each capability's, merged
 * in from its folder's events.ts (`declare module '../events/parse.js' { interface EventChecks {…} }`).
 * An event type without checks here does not compile (ReadEvent below).
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- each capability's events.ts adds its members
export interface EventChecks extends CoreChecks {}
type CoreChecks = typeof CHECKS;
type CoreType = keyof CoreChecks;
/** The event types the capabilities add (each in its folder's events.ts). */
export type CapabilityEventType = Exclude<EventType, CoreType>;

/** An event of kind T as read from events.jsonl: the fields its checks check, optional where they take them so. */
export type ReadOf<T extends EventType & keyof EventChecks> = T extends EventType
  ? EventHead<T> & ReadFields<EventChecks[T]>
  : never;
type ReadFields<C> = {
  [K in keyof C as C[K] extends Check<unknown> ? K : never]: C[K] extends Check<infer V> ? V : never;
} & {
  [K in keyof C as C[K] extends Check<unknown> ? never : K]?: C[K] extends Optional<infer V> ? V : never;
};

/** What a reader of events.jsonl gets from a line: an event of a kind it knows, or an UnknownEvent. */
export type ReadEvent = ReadOf<EventType> | UnknownEvent;

// Whether `object` has the fields `checks` requires; an optional one of another type is deleted from it.
function fieldsCheck(checks: FieldChecks, object: Record<string, unknown>) {
  for (const [key, check] of Object.entries(checks)) {
    const value = object[key];
    if (typeof check !== 'function') {
      if (value !== undefined && !check.optional(value)) delete object[key];
    } else if (!check(value)) return false;
  }
  return true;
}

// The checks a table of checks is made of; a capability's events.ts uses them too.
export const str = (value: unknown): value is string => typeof value === 'string';
export const num = (value: unknown): value is number => typeof value === 'number';
const bool = (value: unknown): value is boolean => typeof value === 'boolean';
export const opt = <V>(check: Check<V>): Optional<V> => ({ optional: check });
const orNull =
  <V>(check: Check<V>): Check<V | null> =>
  (value): value is V | null =>
    value === null || check(value);
// An object with these fields; an optional one of another type makes the whole object not check.
const shape =
  <F>(checks: Checks<F>): Check<F> =>
  (value): value is F =>
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    Object.entries(checks as Record<string, Check<unknown> | Optional<unknown>>).every(([key, check]) => {
      const field = (value as Record<string, unknown>)[key];
      return typeof check === 'function' ? check(field) : field === undefined || check.optional(field);
    });

const stepPlace = { step: num, role: str, task: str };
const attempt = { ...stepPlace, done_task: opt(orNull(str)), attempt: num, rerun: opt(num) };

// The fields the readers (fold.ts, records.ts) read; the others pass through unchecked and unread.
// The core's event types; each capability's are in its folder's events.ts.
const CHECKS = {
  run_started: {},
  warning: {},
  step_started: { ...stepPlace, trigger: opt(str) },
  attempt_started: { ...attempt, of: num, trigger: opt(str), cli: opt(str), agent: opt(str) },
  attempt_finished: {
    ...attempt,
    end: str,
    durationMs: num,
    valid: bool,
    exitCode: opt(orNull(num)),
    signal: opt(orNull(str)),
    issue: opt(str),
    failure: opt(str),
    status: opt(str),
    message: opt(str),
    usage: opt(
      shape<EventUsage>({
        costUsd: opt(num),
        inputTokens: opt(num),
        cachedInputTokens: opt(num),
        outputTokens: opt(num),
        totalTokens: opt(num),
      }),
    ),
    stdoutFile: opt(str),
    stderrFile: opt(str),
  },
  retry: {},
  board_written: { step: num, status: opt(str), current: opt(orNull(str)) },
  human_edit_kept: { step: num },
  handed_to_manager: { step: num, message: opt(str) },
  done: {},
  halted: {
    step: opt(num),
    role: opt(str),
    task: opt(str),
    exitCode: num,
    reason: opt(str),
    message: opt(str),
    issue: opt(str),
  },
  interrupted: { exitCode: num, reason: opt(str), message: opt(str) },
} satisfies { [T in EventType]?: Checks<EventFields[T]> };
