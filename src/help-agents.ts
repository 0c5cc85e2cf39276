/** `--help` of the commands about one agent's attempts, `{ks}` standing for the program (see help.ts). */
export const AGENT_HELP: Record<string, string> = {
  logs: `Usage: {ks} logs [board] [--task FILE] [--step N] [--run ID] [--role NAME] [--attempt N]
                      [--stdout | --stderr] [--raw] [--follow] [--try]

Prints what an agent printed: the stdout and stderr of one attempt, from its files under
.kanban-supervisor/runs/. Without options, the board's last attempt. The event log
(.kanban-supervisor/events.jsonl, read from its end) says which files are whose. Each stream
comes under a heading naming its file; an empty stream has no file, and a file the retention
limits (supervisor.keep_runs, keep_bytes, keep_attempts) removed is said to be gone.

The stdout of a CLI it knows (Claude Code, Codex, Gemini CLI: the role's command names it)
is shown as a transcript: each JSON event line replaced by the model's text in full, or a tool
call as one line ("Bash: npm test"); Gemini's streamed pieces are joined into one text; other
lines are printed as they are. --raw prints the JSON lines as the CLI wrote them. The stdout
heading says which you see. Other commands' output, and stderr, are always printed as written.

On a terminal, control sequences in the agent's output (colours, cursor moves, window titles)
are removed and other control characters shown as �. To a pipe or a file the bytes are
printed exactly as the agent wrote them (a known CLI's with --raw).

Options:
  --task FILE     the last attempt on this task (its worker's; add --role Manager for the
                  Manager's turn after it), from any run
  --step N        the last attempt of step N of the last run (or of --run ID)
  --run ID        only attempts of this run (run ids are in status, report and events.jsonl)
  --role NAME     only attempts of this role, e.g. Implementor or Manager
  --attempt N     only the Nth attempt of its agent run (1 is the first try, 2 the first
                  retry), e.g. the failed one before a valid retry
  --stdout        print only the stdout, with no heading (for jq, grep, less)
  --stderr        print only the stderr, with no heading
  --raw           a known CLI's stdout as written (its JSON events), not as its transcript
  --follow, -f    when the attempt is still running, keep printing its output as it comes
                  (stderr to stderr) until it ends; Ctrl-C stops following, not the run
  --try           the attempts of \`try\`, kept in .kanban-supervisor/try/

Exit codes: 0 printed · 2 no attempt matches (the message says what there is) or bad input.

Examples:
  {ks} logs
  {ks} logs --task tasks/002-api.md
  {ks} logs --step 3 --role Manager
  {ks} logs --task tasks/002-api.md --attempt 1
  {ks} logs --follow
  {ks} logs --stdout --raw | jq .
`,
  try:
    `Usage: {ks} try <role> [board] (--instruction TEXT | --task FILE) [--result JSON] ` +
    `[--max-retries N] [--timeout DUR] [--quiet]

Runs one role's agent once — its role file, the same inputs, format check and retries as a
run — and prints its validated reply as JSON on stdout. The way to try a role file, or an
agent CLI's login, before a real run. Progress and the outcome go to stderr.

It takes no lock and never writes kanban.yaml, so it can run beside a run; its retries are
logged in supervisor.log.md as a run's are. The agent itself runs for real: what it does to
files, it does. Its attempt output and events are kept apart in .kanban-supervisor/try/
(see logs --try), out of status and report.

The role gets role, kanban_file and, as {{instruction}} and in KANBAN_INPUT, --instruction;
with --task, the task as task_file ({{task_file}}, KANBAN_TASK_FILE). The Manager gets --task
as done_task, the board's tasks, and --result (a JSON object) as the worker's reply.
Role names are as a run gives them: Implementor, Architect, Manager, or a task's role:.

Options:
  --instruction TEXT   what to do, given to the agent as {{instruction}}
  --task FILE          a task file of the board (board-relative), as a run would give it
  --result JSON        for the Manager: the worker's reply it hears about
  --max-retries N      retries after the first attempt (default: the board's, else 3)
  --timeout DUR        default agent timeout (a role file's own timeout: still wins)
  --quiet, -q          print only the reply (and errors)

Exit codes: 0 a valid reply, whatever its status · 2 bad role, board or input ·
3 no valid reply after the retries · 130 / 143 interrupted.

Examples:
  {ks} try Implementor --instruction "Print the date"
  {ks} try Architect --task tasks/003-review.md
  {ks} try Manager --task tasks/001-example.md --result '{"status":"ok","message":"done"}'
  {ks} try Implementor path/to/board --task tasks/002.md --max-retries 0 | jq -r .message
`,
};
