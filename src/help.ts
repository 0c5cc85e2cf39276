import { AGENT_HELP } from './help-agents.js';
import type { CapabilitySurface } from './loop/context.js';
import { selfCommand } from './util/self-command.js';

// Every text names the program as the person can run it ({ks}: `kanban-supervisor` or
// `npx kanban-supervisor`, see util/self-command.ts), so each example can be pasted as it is;
// {sp} is blank of the same width.
const MAIN = `kanban-supervisor — run CLI agents task by task from a kanban board of plain files

Usage:
  {ks} [run] [board] [options]        run the board until the Manager says it is done
  {ks} init [folder] [--agent NAME] [--force] [--from backlog|PATH/tasks.json]
  {ks} validate [board]               check the board, its task files and role files
  {ks} status [board] [--json]        phase, tasks, last outcomes, whether a run is going on
  {ks} report [board] [--watch]      the board as a kanban view and the runs' timeline (HTML)
  {ks} logs [board] [--task FILE | --step N] [--follow]
  {sp}                                an attempt's stdout and stderr (default: the last one)
  {ks} try <role> [board] (--instruction TEXT | --task FILE)
  {sp}                                run one role once, print its validated reply
  {ks} version | help [command] | <command> --help

A board is its kanban.yaml or the folder holding it; without one, ./kanban.yaml is used.

Quick start:
  {ks} init my-board              scaffold a board that runs without an API key
  cd my-board{sp}                 then describe your work in tasks/*.md, listed in kanban.yaml
  {ks} validate                   list every problem of the board, task and role files
  {ks} --dry-run                  show what the next step would run; run nothing
  {ks}                            run it until the Manager says it is done
  {ks} status                     where it stands, how the last run ended and why
  {ks} logs                       the last attempt's stdout and stderr
  {ks} report                     write .kanban-supervisor/report.html: the board, then the runs
  {ks} report --watch             serve that page live on 127.0.0.1 while a run goes on

Exit codes: 0 done · 1 internal error · 2 bad board/role/CLI input or no login · 3 retries
exhausted · 4 halted for a human (Manager status not ok) · 5 a loop guard or budget ·
6 a step's commit failed (supervisor.git_commit: a git hook refused it) ·
69 usage limit resets after max_limit_wait or --max-time · 73 board folder not writable · 74 output closed ·
75 board locked · 124 --max-time reached · 129 / 130 / 143 interrupted (SIGHUP / SIGINT / SIGTERM).
`;

const COMMANDS: Record<string, string> = {
  init: `Usage: {ks} init [folder] [--agent shell|claude|codex|gemini|opencode|copilot|kilo|<cli>-acp] [--force]
{sp}      [--from backlog | --from PATH/tasks.json]

Scaffolds a working board in folder (default: the current folder): kanban.yaml, tasks/ with one
example task, roles/ (Implementor, Architect, Manager) from the agent's preset, and a
.gitignore for the run output (.kanban-supervisor/, supervisor.log.md). Never overwrites an
existing board file: if one is there, it writes nothing at all, unless --force is given (then
it overwrites them). An existing .gitignore is never replaced: the lines it lacks are appended
to it. The claude, codex and gemini role files carry a "# sandbox:" line naming the CLI's own
files: uncomment it to run the agent in a fence (Linux, bubblewrap; see docs/sandbox.md).

Options:
  --agent NAME   shell (default: the shipped shell agent, no API key needed), claude, codex, gemini,
                 opencode, copilot, kilo; or opencode-acp, kilo-acp, copilot-acp: the workers
                 spoken to over the Agent Client Protocol (protocol: acp), each permission
                 they ask answered by the role's policy (docs/agent-clis.md, "Routes")
  --force        overwrite existing board files
  --from backlog the Backlog.md project in folder is the board: its backlog/tasks/ files listed in
                 kanban.yaml as they are (never copied or changed), in dependency order, then
                 ordinal, the done ones left out; the Manager sets a task done with
                 \`backlog task edit ID -s Done\` (Backlog.md's CLI must be on PATH)
  --from PATH/tasks.json
                 task-master's active tag (.taskmaster/state.json's currentTag, else master): its
                 tasks not done, cancelled or deferred written once as tasks/*.md, in dependency
                 order. See docs/boards-you-keep.md.

Examples:
  {ks} init my-board
  {ks} init . --agent claude
  {ks} init --from backlog --agent claude
  {ks} init night --from .taskmaster/tasks/tasks.json
`,
  run: `Usage: {ks} [run] [board] [options]

Runs the board (its kanban.yaml, or the folder holding it; default ./kanban.yaml): reads
kanban.yaml, runs the current task's role agent, checks only the format of its reply
(retrying with identical inputs), hands the reply to the Manager, writes the Manager's
next_task back, and loops until there is no next task or the phase is complete.

On a terminal one status line is redrawn in place (step, role, task, attempt, elapsed times,
the agent's latest output line) with a permanent ✓ / ✗ line per finished step; on a pipe or in
CI (CI=true) plain timestamped lines. The last line is always the outcome and what to do next.

Options:
  --max-retries N     retries after the first attempt (default 3; board: supervisor.max_retries)
  --max-steps N       stop with exit 5 after N steps (default 500; board: supervisor.max_steps)
  --timeout DUR       default agent timeout, e.g. 90s, 20m, 1h (default 30m; board:
                      supervisor.timeout). A role file's own timeout: still wins.
  --once              run one step (the task's agent, then the Manager), then stop
  --dry-run           print what the next step would run — role, role file, argv, the prompt,
                      stdin, the environment (values of secrets and of the role's env: masked),
                      cwd, which timeout applies and why, a sandboxed role's fence (writable,
                      readable, read-only, hidden, network) — and run nothing, lock nothing, write nothing
                      (with --json: one JSON object). A missing agent program or bubblewrap is a
                      warning here; a run stops on it with exit 2.
  --json              print one JSON event per line on stdout (as in .kanban-supervisor/events.jsonl)
                      and nothing else; the outcome line goes to stderr
  --quiet, -q         print only the outcome
  --no-color          no colours (also: NO_COLOR=1)
{capability-flags}

{capability-settings}

Examples:
  {ks}
  {ks} run path/to/board --max-retries 1 --timeout 10m
  {ks} kanban.yaml --dry-run
  {ks} kanban.yaml --json | jq -c 'select(.type == "attempt_finished")'
{capability-examples}
`,
  validate: `Usage: {ks} validate [board]

Checks kanban.yaml, every task file it lists and every role file it needs (each task's role,
and the Manager): YAML and front-matter syntax, the schemas, durations, unknown
{{placeholders}}, agent commands that are not installed, extra reply schemas, whether a role's
sandbox: fence can be built here (bubblewrap installed, user namespaces on). Reports every
problem at once as file:line: message, then exits 2; or prints one OK line and exits 0.
Warnings do not fail it: a known agent CLI that would get no prompt (stdin: none and no
"{{prompt}}" argument), a role timeout: shorter than supervisor.timeout (the role's wins), a task
key that looks like role. --dry-run shows them. On a finished board (current: null) the OK line
says how to run a task: set current: to it.
Runs nothing and writes nothing. A run makes the same checks before its first agent starts.

Examples:
  {ks} validate
  {ks} validate boards/api && {ks} boards/api
`,
  status: `Usage: {ks} status [board] [--json]

The board at a glance: phase, current task, each task with its title, the role that runs it
and its last reply, how the last run ended and what to do next, its spend, the last halt and
why, what a run waits for and until when (a usage limit, a --watch wait), and whether a
supervisor holds the board's lock now (pid, since when). It reads the end of
.kanban-supervisor/events.jsonl (16 MiB at most), so it is quick on any history. Reads only:
takes no lock and writes nothing, so it is safe while a run is going on.

Options:
  --json   print the same as one JSON object

Examples:
  {ks} status
  watch -n 5 {ks} status path/to/board
  {ks} status --json | jq '.tasks[] | select(.current)'
`,
  report: `Usage: {ks} report [board] [--out FILE] [--runs N | --all]
       {ks} report [board] --json [--runs N | --all]
       {ks} report [board] --watch [--port N] [--runs N | --all]

Writes one self-contained HTML page (no scripts, no external files) of the board and its event
log. First the board as a kanban view: To do, Current, Blocked / set aside and Done, each task a
card with its role, title, last outcome, attempts, spend and links to its work log (the task
file) and its last output. Then the runs: totals and spend per role, a timeline per run, newest
first, with every attempt as a bar (retries and timeouts marked, replies coloured by status),
and every attempt with its message and links to its stdout and stderr files. The morning
figures per run and per task: tasks completed, model runs, retries, cost and tokens a completed
task, time waiting for usage limits. Covers the last 10 runs unless told otherwise. Takes no
lock: it can run while the supervisor does.

With --json it writes nothing: it prints the board's cards and each run's figures as one JSON
object.

With --watch it writes nothing: it serves the page on 127.0.0.1 (at a secret address it prints)
and the open page follows the run, reloading within a second or two of each event, until Ctrl-C.

Options:
  --out FILE, -o FILE   where to write the page (default: .kanban-supervisor/report.html
                        beside kanban.yaml); a folder: its report.html. Outside the board
                        folder the page carries the files it links (attempt output, work
                        logs, secrets masked) in FILE-files/ beside it, so it travels
  --runs N              the last N runs (default 10)
  --all                 every run in the event log
  --json                print the cards and figures as JSON instead of writing the page
  --watch               serve the page live instead of writing it
  --port N              the port to serve on with --watch (default: a free one)

Examples:
  {ks} report
  {ks} report path/to/board --out /tmp/board-report.html && xdg-open /tmp/board-report.html
  {ks} report --all
  {ks} report --watch --port 8080
`,
  ...AGENT_HELP,
};

/** Top-level `--help`. */
export function mainHelp(env: NodeJS.ProcessEnv = process.env): string {
  return fill(MAIN, env);
}

/**
 * `--help` of one command (`help` and `version` get the top-level one); `run`'s lists what the
 * capabilities add (run/capability-list.ts, loaded by cli.ts only for it).
 */
export function commandHelp(
  command: string,
  env: NodeJS.ProcessEnv = process.env,
  capabilities: readonly CapabilitySurface[] = [],
): string {
  const text = (COMMANDS[command] ?? MAIN)
    .replace('{capability-flags}', capabilityFlags(capabilities))
    .replace('{capability-settings}', capabilitySettings(capabilities))
    .replace(
      '{capability-examples}',
      capabilities
        .flatMap((one) => one.examples ?? [])
        .map((line) => `  {ks} ${line}`)
        .join('\n'),
    );
  return fill(text, env);
}

// The flags the capabilities add to `run`, as their surface.ts words them, in the list's order.
function capabilityFlags(capabilities: readonly CapabilitySurface[]): string {
  return capabilities
    .flatMap((capability) => capability.flags ?? [])
    .flatMap(({ usage, help }) => help.map((line, i) => `  ${(i === 0 ? usage : '').padEnd(20)}${line}`))
    .join('\n');
}

// The board settings for other shapes of supervisor: the core's, then each capability's, wrapped.
function capabilitySettings(capabilities: readonly CapabilitySurface[]): string {
  const parts = [
    'on_exhausted (halt, or manager: the Manager gets {"status": "error"} after the last retry)',
    ...capabilities.flatMap((capability) => capability.settingsHelp ?? []),
  ];
  return wrap(
    `Board settings for other shapes of supervisor (kanban.yaml, supervisor:): ${parts.join(', ')}. ` +
      'See docs/shapes.md.',
  );
}

// Words in lines of at most 96 columns.
function wrap(text: string): string {
  const lines: string[] = [];
  for (const word of text.split(' ')) {
    const last = lines.at(-1);
    if (last !== undefined && last.length + 1 + word.length <= 96) lines[lines.length - 1] = `${last} ${word}`;
    else lines.push(word);
  }
  return lines.join('\n');
}

// {sp} is as wide as {ks}, so that columns stay aligned whichever the program's name is.
function fill(text: string, env: NodeJS.ProcessEnv): string {
  const ks = selfCommand(env);
  return text.replaceAll('{ks}', ks).replaceAll('{sp}', ' '.repeat(ks.length));
}
