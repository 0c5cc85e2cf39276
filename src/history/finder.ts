import type { SupervisorEvent } from '../log/events.js';
import { parseEvent } from './parse-event.js';

/**
 * One thing `status` looks for in the history, fed events newest first until it has found
 * it. Showing something new (spend, a waiting state) is one more finder: the reading, and
 * where it stops, stay as they are.
 */
export interface Finder {
  /** Whether an event line may matter, told from a peek at it (fieldPeeker), never a parse; true when unsure. */
  wants(line: string): boolean;
  see(event: SupervisorEvent): void;
  readonly found: boolean;
}

/**
 * Feed event lines, newest first, to the finders until every one has found what it looks
 * for. A line is parsed only if a finder still looking may want it: most lines of a long
 * history are about tasks already found, and parsing is most of the cost of reading.
 */
export function feed(newestFirst: Iterable<{ text: string }>, finders: readonly Finder[]): void {
  for (const line of newestFirst) {
    if (!wanted(line.text, finders)) continue;
    const event = parseEvent(line.text);
    if (!event) continue;
    let all = true;
    for (const finder of finders) {
      if (finder.found) continue;
      finder.see(event);
      all &&= finder.found;
    }
    if (all) return;
  }
}

function wanted(text: string, finders: readonly Finder[]): boolean {
  for (const finder of finders) if (!finder.found && finder.wants(text)) return true;
  return false;
}
