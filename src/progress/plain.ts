import type { SupervisorEvent } from '../event-types.js';
import type { CapabilityEvents } from '../events/capability-events.js';
import { formatDuration } from '../util/duration.js';
import { localStamp } from '../util/time.js';
import { eventLine } from './event-lines.js';
import { createStyle } from '../util/style.js';
import type { Reporter } from './reporter-type.js';

/** Where plain lines go, and the clock. */
export interface PlainOutput {
  write: (text: string) => void;
  now?: () => number;
  /** A line every this often while an agent runs, so a long attempt is seen alive (0: never). */
  heartbeatMs?: number;
  /** The capabilities' event types, each with its console line (its events.ts). */
  events: readonly CapabilityEvents[];
}

const NO_COLOUR = createStyle(false);

/** Plain, timestamped lines: for pipes, CI and log files (no escape codes, nothing redrawn). */
export function plainReporter(output: PlainOutput): Reporter {
  const now = output.now ?? (() => performance.now());
  const stamp = (event?: SupervisorEvent) => localStamp(event?.time ?? Date.now()).slice(11);
  let attempt: { role: string; number: number; of: number; start: number } | null = null;
  let latest: { text: string; at: number } | null = null;
  const beat = () => {
    if (!attempt) return;
    const quiet = latest ? `; last output ${formatDuration(now() - latest.at)} ago: ${latest.text}` : '; no output yet';
    output.write(
      `${stamp()}   … ${attempt.role} attempt ${attempt.number}/${attempt.of} running for ` +
        `${formatDuration(now() - attempt.start)}${quiet}\n`,
    );
  };
  const timer = output.heartbeatMs ? setInterval(beat, output.heartbeatMs) : undefined;
  timer?.unref();
  return {
    event: (event) => {
      if (event.type === 'attempt_started')
        attempt = { role: event.role, number: event.attempt, of: event.of, start: now() };
      if (event.type === 'attempt_finished') attempt = null;
      if (event.type === 'attempt_started') latest = null;
      const line = eventLine(event, NO_COLOUR, output.events);
      if (line) output.write(`${stamp(event)} ${line}\n`);
    },
    line: (text) => {
      latest = { text, at: now() };
    },
    close: () => clearInterval(timer),
    style: NO_COLOUR,
  };
}
