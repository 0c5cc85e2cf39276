import path from 'node:path';
import type { Capability, OpenCapability } from '../loop/context.js';
import { periodicRoles } from './settings.js';
import { RunTally } from './tally.js';

/**
 * `supervisor.periodic` (SPEC §5b): a role run after every N completed steps, on the board and
 * the tasks completed since it last ran; its reply goes untouched to the Manager (`done_task:
 * null`, `trigger: <role>`), whose answer is applied like any other.
 */
export const periodic: OpenCapability = (kind): Capability | undefined => {
  if (kind !== 'run') return undefined;
  const tally = new RunTally();
  return {
    afterStep: (task, settings) =>
      tally.stepCompleted(task, periodicRoles(settings.supervisor)).map(({ role }) => ({
        role,
        name: `${role}'s periodic run`,
        // Taken as the step runs: a stop before it leaves the tasks for the next run of the role.
        inputs: (board) => ({
          role,
          kanban_file: path.basename(board.file),
          tasks: board.tasks,
          done_tasks: tally.takeDone(role),
        }),
      })),
  };
};
