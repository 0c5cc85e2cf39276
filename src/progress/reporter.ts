import type { CapabilityEvents } from '../events/capability-events.js';
import { writeIfOpen } from '../util/write-if-open.js';
import { liveReporter } from './live.js';
import { plainReporter } from './plain.js';
import { createStyle } from '../util/style.js';
import type { ReporterMode } from './style.js';
import type { Reporter } from './reporter-type.js';

// Plain output says every five minutes that a long attempt is still running.
const HEARTBEAT_MS = 5 * 60_000;

/** The reporter that shows a run's progress on `out` (a TTY stream for the live mode), `events` the capabilities'. */
export function createReporter(
  mode: ReporterMode,
  out: NodeJS.WritableStream & { columns?: number },
  events: readonly CapabilityEvents[],
  options: { colour?: boolean; heartbeatMs?: number } = {},
): Reporter {
  const write = (text: string) => writeIfOpen(out, text);
  const style = createStyle(mode === 'live' && options.colour === true);
  const none = { line: () => {}, close: () => {}, style };
  switch (mode) {
    case 'json':
      return { ...none, event: (event) => write(`${JSON.stringify(event)}\n`) };
    case 'quiet':
      return { ...none, event: () => {} };
    case 'live':
      // Under `script` or a pty of size 0 the width is unknown: assume the classic 80.
      return liveReporter({ write, style, columns: () => out.columns || 80, events });
    default:
      return plainReporter({ write, heartbeatMs: options.heartbeatMs ?? HEARTBEAT_MS, events });
  }
}
