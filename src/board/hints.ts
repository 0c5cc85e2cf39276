/** How to run a task on a board whose `current` is null: the one wording of it (validate, --dry-run, the Done line). */
export const RUN_A_TASK = 'To run a task, set `current:` in kanban.yaml to its path (one of tasks).';
