/** How to run a task on a board whose `current` is null: the one wording of it (validate, --dry-run, the Done line). */
export const RUN_A_TASK = 'To run a task, set `current:` in kanban.yaml to its path (one of tasks).';

/**
 * Everything to change so that a finished board runs again, said at once (pure): `current` when
 * it is null, `phase` when it is complete, both when both are (as the sequential Manager leaves a
 * board): a person adding a task learns it in one run, not in three. Empty when the board is not finished.
 */
export function toRunMore(board: { current: string | null; phase?: string | null }, name = 'kanban.yaml'): string {
  const complete = board.phase === 'complete';
  if (board.current === null && complete)
    return (
      `To run more, change both in ${name}: set \`current:\` to the task to run (one of tasks), ` +
      'and `phase: complete` to another phase (e.g. `phase: execute`).'
    );
  if (board.current === null) return RUN_A_TASK.replace('kanban.yaml', name);
  if (complete)
    return (
      `To run ${board.current}, set \`phase:\` in ${name} to another value (e.g. \`phase: execute\`); ` +
      'if the work is done, set `current: null`.'
    );
  return '';
}

/** What validate's OK line adds on a board whose current is null: what to change to run more. */
export function finishedNote(phase: string | null, name: string): string {
  const complete = phase === 'complete' ? ' and phase is complete' : '';
  return `current is null${complete}, so a run stops at once. ${toRunMore({ current: null, phase }, name)}`;
}
