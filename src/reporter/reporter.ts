import type { EventListener } from '../log/events.js';
import { plainReporter } from './plain.js';

/** How progress is shown: plain lines, JSON events, or nothing but the outcome. */
export type ReporterMode = 'plain' | 'json' | 'quiet';

/** The listener that shows a run's progress on `out`. */
export function createReporter(mode: ReporterMode, out: NodeJS.WritableStream): EventListener {
  const write = (text: string) => void out.write(text);
  switch (mode) {
    case 'json':
      return (event) => write(`${JSON.stringify(event)}\n`);
    case 'quiet':
      return () => {};
    default:
      return plainReporter(write);
  }
}
