/** Top-level `--help`. */
export const HELP = `kanban-supervisor — run CLI agents task by task from a kanban board of plain files

Usage:
  kanban-supervisor [run] <kanban.yaml> [--max-retries N] [--max-steps N] [--timeout DUR]
                                        [--once] [--json] [--quiet]
  kanban-supervisor init [dir] [--agent shell|claude|codex|gemini] [--force]
  kanban-supervisor --help | --version
  kanban-supervisor help <command>

Examples:
  npx kanban-supervisor kanban.yaml               run the board until the Manager says it is done
  npx kanban-supervisor kanban.yaml --once        run one task (and the Manager), then stop
  npx kanban-supervisor kanban.yaml --timeout 5m  agents without their own timeout get 5 minutes

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

Options:
  --max-retries N   retries after the first attempt (default 3; board: supervisor.max_retries)
  --max-steps N     stop with exit 5 after N steps (default 500; board: supervisor.max_steps)
  --timeout DUR     default agent timeout, e.g. 90s, 20m, 1h (default 30m; board:
                    supervisor.timeout). A role file's own timeout: still wins.
  --once            run one step, then stop
  --json            print one JSON event per line on stdout (as in .kanban-supervisor/events.jsonl)
  --quiet, -q       print only the outcome

Examples:
  kanban-supervisor kanban.yaml
  kanban-supervisor run path/to/kanban.yaml --max-retries 1 --timeout 10m
  kanban-supervisor kanban.yaml --json | jq -c 'select(.type == "attempt_finished")'
`,
};

/** `--help` of one command. */
export function commandHelp(command: string): string {
  return COMMANDS[command] ?? HELP;
}
