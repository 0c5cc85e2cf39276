import { EVENTS } from '../event-types.js';
import { RUNS } from '../log/output-store.js';

/** Where one kind of agent run keeps its events and attempt output, board-relative. */
export interface OutputPlace {
  events: string;
  runs: string;
}

/** A board's runs: what status, report and logs read. */
export const RUN_PLACE: OutputPlace = { events: EVENTS, runs: RUNS };

/** `try`'s runs, kept apart so that status and report show the board's runs only (`logs --try` reads them). */
export const TRY_PLACE: OutputPlace = {
  events: '.kanban-supervisor/try/events.jsonl',
  runs: '.kanban-supervisor/try/runs',
};
