/** Top-level `--help`. */
export const HELP = `kanban-supervisor — run CLI agents task by task from a kanban board of plain files

Usage:
  kanban-supervisor [run] <kanban.yaml> [--max-retries N] [--max-steps N] [--timeout DUR]
                                        [--once] [--watch] [--dry-run] [--json] [--quiet] [--no-color]
                                        [--on-complete CMD] [--on-halt CMD]
  kanban-supervisor init [dir] [--agent shell|claude|codex|gemini] [--force]
  kanban-supervisor status <kanban.yaml> [--json]
  kanban-supervisor validate <kanban.yaml>
  kanban-supervisor report <kanban.yaml> [--out FILE]
  kanban-supervisor --help | --version
  kanban-supervisor help <command>          (or: kanban-supervisor <command> --help)

Examples:
  npx kanban-supervisor init my-board             scaffold a board that runs without an API key
  npx kanban-supervisor validate kanban.yaml      list every problem of the board, task and role files
  npx kanban-supervisor kanban.yaml --dry-run     show what the next step would run, run nothing
  npx kanban-supervisor kanban.yaml               run the board until the Manager says it is done
  npx kanban-supervisor kanban.yaml --once        run one task (and the Manager), then stop
  npx kanban-supervisor status kanban.yaml        phase, tasks, last outcomes, whether a run is going on
  npx kanban-supervisor report kanban.yaml        write .kanban-supervisor/report.html, a timeline of every attempt

Exit codes: 0 done · 1 internal error · 2 bad board/role/CLI input · 3 retries exhausted ·
4 halted for a human (Manager status not ok) · 5 max_steps or loop guard · 75 board locked ·
129 / 130 / 143 interrupted (SIGHUP / SIGINT / SIGTERM).
`;

const COMMANDS: Record<string, string> = {
  init: `Usage: kanban-supervisor init [dir] [--agent shell|claude|codex|gemini] [--force]

Scaffolds a working board in dir (default: the current folder): kanban.yaml, tasks/ with one
example task, and roles/ (Implementor, Architect, Manager) from the agent's preset. Never
overwrites an existing file unless --force is given; then it writes nothing at all.

Options:
  --agent NAME   shell (default: the shipped shell agent, no API key needed), claude, codex, gemini
  --force        overwrite existing board files

Examples:
  kanban-supervisor init my-board
  kanban-supervisor init . --agent claude
`,
  run: `Usage: kanban-supervisor [run] <kanban.yaml> [options]

Runs the board: reads kanban.yaml, runs the current task's role agent, checks only the
format of its reply (retrying with identical inputs), hands the reply to the Manager, writes
the Manager's next_task back, and loops until there is no next task.

On a terminal one status line is redrawn in place (step, role, task, attempt, elapsed times,
the agent's latest output line) with a permanent ✓ / ✗ line per finished step; on a pipe or in
CI (CI=true) plain timestamped lines. The last line is always the outcome and what to do next.

Options:
  --max-retries N     retries after the first attempt (default 3; board: supervisor.max_retries)
  --max-steps N       stop with exit 5 after N steps (default 500; board: supervisor.max_steps)
  --timeout DUR       default agent timeout, e.g. 90s, 20m, 1h (default 30m; board:
                      supervisor.timeout). A role file's own timeout: still wins.
  --once              run one step (the task's agent, then the Manager), then stop
  --watch             stay resident where the run would end (done, halted, retries exhausted,
                      a guard or budget stop, a missing login, a long usage limit): hold the
                      lock, say what it waits for (.kanban-supervisor/waiting.json), and carry on
                      when a person edits kanban.yaml, a task or a role file and it validates.
                      Ends with Ctrl-C / SIGTERM (130 / 143). Not with --once.
  --dry-run           print what the next step would run — role, role file, argv, stdin, the
                      KANBAN_* environment, cwd, timeout — and run nothing, lock nothing, write
                      nothing (with --json: one JSON object)
  --json              print one JSON event per line on stdout (as in .kanban-supervisor/events.jsonl)
                      and nothing else; the outcome line goes to stderr
  --quiet, -q         print only the outcome
  --no-color          no colours (also: NO_COLOR=1)
  --on-complete CMD   run CMD when the run ends with exit 0 (done, or the --once step)
  --on-halt CMD       run CMD when the run stops with any other exit code
                      CMD is split into words like a shell does ('…' and "…" quote, \\ escapes)
                      but run as argv, never through a shell: no $VARS, pipes or globs. It runs
                      in the board folder, its output goes to stderr, and it gets
                      KANBAN_OUTCOME (done, once, halted_for_human, retries_exhausted, max_steps,
                      locked, interrupted, bad_input, internal_error), KANBAN_EXIT_CODE,
                      KANBAN_MESSAGE (the outcome line), KANBAN_FILE (kanban.yaml, absolute),
                      KANBAN_RUN, KANBAN_STEPS and KANBAN_TASK (the last step's task).

Board settings for other shapes of supervisor (kanban.yaml, supervisor:): periodic
(roles run after every N completed steps, their reply to the Manager with trigger),
on_exhausted (halt, or manager: the Manager gets {"status": "error"} after the last retry),
watch_poll (how often --watch also compares the files itself; default 5s). See the README.

Examples:
  kanban-supervisor kanban.yaml
  kanban-supervisor run path/to/kanban.yaml --max-retries 1 --timeout 10m
  kanban-supervisor kanban.yaml --dry-run
  kanban-supervisor kanban.yaml --watch
  kanban-supervisor kanban.yaml --json | jq -c 'select(.type == "attempt_finished")'
  kanban-supervisor kanban.yaml --on-halt "notify-send 'kanban-supervisor stopped'"
  kanban-supervisor kanban.yaml --on-complete "./notify.sh done" --on-halt "./notify.sh halted"
`,
  status: `Usage: kanban-supervisor status <kanban.yaml> [--json]

The board at a glance: phase, current task, each task with the role that runs it and its last
outcome (from .kanban-supervisor/events.jsonl), how the last run ended, the last halt and why,
and whether a supervisor holds the board's lock now (pid, since when). Reads only: takes no
lock and writes nothing, so it is safe while a run is going on.

Options:
  --json   print the same as one JSON object

Examples:
  kanban-supervisor status kanban.yaml
  watch -n 5 kanban-supervisor status kanban.yaml
  kanban-supervisor status kanban.yaml --json | jq '.tasks[] | select(.current)'
`,
  validate: `Usage: kanban-supervisor validate <kanban.yaml>

Checks kanban.yaml, every task file it lists and every role file it needs (each task's role,
and the Manager): YAML and front-matter syntax, the schemas, durations, unknown
{{placeholders}}, agent commands that are not installed, extra reply schemas. Reports every
problem at once as file:line: message, then exits 2; or prints one OK line and exits 0.
Runs nothing and writes nothing.

Examples:
  kanban-supervisor validate kanban.yaml
  kanban-supervisor validate boards/api/kanban.yaml && kanban-supervisor boards/api/kanban.yaml
`,
  report: `Usage: kanban-supervisor report <kanban.yaml> [--out FILE]

Writes one self-contained HTML page (no scripts, no external files) from the board's event
log: a timeline per run with every attempt of every task as a bar (retries and timeouts
marked), totals per role, and links to each attempt's stdout and stderr files. Takes no
lock: it can run while the supervisor does.

Options:
  --out FILE, -o FILE   where to write the page (default: .kanban-supervisor/report.html
                        beside kanban.yaml)

Examples:
  kanban-supervisor report kanban.yaml
  kanban-supervisor report kanban.yaml --out /tmp/board-report.html && xdg-open /tmp/board-report.html
`,
};

/** `--help` of one command. */
export function commandHelp(command: string): string {
  return COMMANDS[command] ?? HELP;
}
