import type { CapabilitySurface } from '../loop/context.js';

/** --on-complete and --on-halt (capability.ts). */
export const hooksSurface: CapabilitySurface = {
  name: 'hooks',
  open: async (kind, options) => (await import('./capability.js')).hooks(kind, options),
  examples: [
    `kanban.yaml --on-halt "notify-send 'kanban-supervisor stopped'"`,
    'kanban.yaml --on-complete "$HOME/bin/notify.sh done" --on-halt "$HOME/bin/notify.sh halted"',
  ],
  flags: [
    {
      name: 'on-complete',
      type: 'string',
      example: `"notify-send done"`,
      usage: '--on-complete CMD',
      help: ['run CMD when the run ends with exit 0 (done, or the --once step)'],
    },
    {
      name: 'on-halt',
      type: 'string',
      example: `"notify-send stopped"`,
      usage: '--on-halt CMD',
      help: [
        'run CMD when the run stops with any other exit code',
        `CMD is split into words like a shell does ('…' and "…" quote, \\ escapes)`,
        'but run as argv, never through a shell: no $VARS, pipes or globs. It runs',
        'in the board folder, its output goes to stderr, and it gets',
        'KANBAN_OUTCOME (done, once, halted_for_human, retries_exhausted, guard_stop,',
        'commit_failed, limit_wait, time_limit, unwritable, output_closed, locked,',
        'interrupted, bad_input, internal_error), KANBAN_EXIT_CODE,',
        'KANBAN_MESSAGE (the outcome line), KANBAN_FILE (kanban.yaml, absolute),',
        "KANBAN_RUN, KANBAN_STEPS and KANBAN_TASK (the last step's task).",
        "When a role is fenced (sandbox:), CMD's program, or the script it gives an",
        'interpreter, must lie outside the board folder (exit 2 otherwise).',
      ],
    },
  ],
};
