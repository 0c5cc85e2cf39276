import type { EventListener } from '../event-types.js';
import type { Style } from '../util/style.js';

/** Shows a run's progress: its events, the running agent's latest output line, and then nothing more. */
export interface Reporter {
  event: EventListener;
  /** The running agent's latest non-blank output line. */
  line: (line: string) => void;
  /** Stop redrawing and leave the terminal clean, before the outcome is printed. */
  close: () => void;
  /** How the outcome line is coloured. */
  style: Style;
}
