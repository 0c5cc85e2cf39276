import type { BoardSettings } from '../board/read-board.js';

/** One entry of `supervisor.periodic`: run `role` after every `every` completed steps. */
export interface PeriodicRole {
  role: string;
  every: number;
}

/** The roles run after every N completed steps, in the order listed (the schema has checked each entry). */
export function periodicRoles(supervisor: BoardSettings): PeriodicRole[] {
  return (supervisor.periodic as PeriodicRole[] | undefined) ?? [];
}
