/**
 * What a run writes beside kanban.yaml, as .gitignore lines: its state folder and the Supervisor
 * Log. `init` keeps them out of git; no step's commit holds them. The board files themselves are
 * the person's to commit.
 */
export const RUN_OUTPUT = ['.kanban-supervisor/', 'supervisor.log.md'] as const;

/** Whether a path relative to the board folder is run output, or inside it (pure). */
export function isRunOutputPath(relative: string): boolean {
  return RUN_OUTPUT.some((entry) =>
    entry.endsWith('/') ? relative === entry.slice(0, -1) || relative.startsWith(entry) : relative === entry,
  );
}
