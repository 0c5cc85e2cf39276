import type { SupervisorEvent } from '../log/events.js';
import type { Finder } from './finder.js';
import { fieldPeeker } from './parse-event.js';
import { isRunEnd, RUN_END_TYPES, runEnd, type RunEnd } from './records.js';

/** Finds the last run that ended other than done (its last end event is a halt or an interrupt), from events fed newest first. */
export class LastHaltFinder implements Finder {
  halt: (RunEnd & { run: string }) | undefined;
  /** Runs whose last end has been seen: an earlier end of theirs does not count. */
  private readonly ended = new Set<string>();
  private readonly peekType = fieldPeeker('type');

  wants(line: string): boolean {
    const type = this.peekType(line);
    return type === undefined || RUN_END_TYPES.has(type);
  }

  see(event: SupervisorEvent): void {
    if (!isRunEnd(event) || this.ended.has(event.run)) return;
    this.ended.add(event.run);
    if (event.type === 'done') return;
    this.halt = { ...runEnd(event), run: event.run };
  }

  get found(): boolean {
    return this.halt !== undefined;
  }
}
