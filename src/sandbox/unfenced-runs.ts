import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { programWord } from '../agents/index.js';
import { agentConfigOf, type AgentConfig } from './agent-configs.js';
import { findProgram } from '../util/process.js';
import { fencedWrites, writablePlace, type FencedWrites } from '../board/fenced-writes.js';
import { outsideWritesEnv, writablePathEntry, writtenPart } from '../board/outside-writes.js';
import { AGENTS_DIR, fillPlaceholders, type AgentInputs } from '../board/inputs.js';
import type { Problem } from '../board/read-board.js';
import type { Role } from '../board/role.js';

/** kanban-supervisor's own folder (src/ or dist/ is one below it). */
const INSTALLED = path.resolve(fileURLToPath(new URL('../..', import.meta.url)));

// Programs that run what the folder they start in holds: npx and its kind look in its
// node_modules/.bin first (even for a package name with a version), npm and the like run its
// package.json scripts, make its Makefile. Started in the board folder, that is a fenced agent's to write.
const RUNS_THE_FOLDER = new Set(['npx', 'pnpx', 'bunx', 'npm', 'pnpm', 'yarn', 'bun', 'deno', 'make', 'gmake', 'just']);

/**
 * What a board with a fenced role would run unfenced from where a fenced agent can write, as
 * problems for `validate` and the run's pre-flight (reads only): kanban-supervisor's own files or
 * the node running it there; an unfenced role that runs an agent CLI (it loads settings, hooks and
 * plugins from the board folder and the user's home), a program that runs what the board folder
 * holds (npx, npm, make), or a program or interpreter script there; an unfenced role's own
 * `env: PATH` listing such a folder. The run's PATH is not a problem: such entries are taken out
 * (pathWarnings). None when no role is fenced. `unfenced` are the roles the board runs
 * unfenced, each with inputs like a run's, to fill its command; `env` is the run's, PATH cleaned.
 */
export function unfencedRunProblems(
  dir: string,
  boardName: string,
  unfenced: ReadonlyArray<{ role: Role; inputs: AgentInputs }>,
  env: NodeJS.ProcessEnv,
): Problem[] {
  const writes = fencedWrites(dir, env);
  if (!writes) return [];
  const fenced = `where a fenced agent (${writes.roles.join(', ')}) can write`;
  const problems: Problem[] = [];
  const own = (what: string, file: string, fix: string) => {
    const place = writablePlace(file, writes);
    if (place) problems.push({ file: boardName, message: `${what} (${file}) lies in ${place}, ${fenced}: ${fix}` });
  };
  own(
    'kanban-supervisor itself',
    INSTALLED,
    'the next run would run what an agent changed there. ' +
      'Install it outside the board folder (npm install -g kanban-supervisor, or in a parent folder).',
  );
  own(
    'the node running kanban-supervisor',
    process.execPath,
    'the next run would run what an agent changed there. Use a node installed outside the board folder.',
  );
  for (const { role, inputs } of unfenced)
    problems.push(...roleProblems(role, inputs, dir, outsideWritesEnv(dir, env).env, writes, fenced));
  return problems;
}

/**
 * The entries of the run's PATH a fenced agent could write into, as warnings (validate, the run's
 * start, --dry-run): every program the supervisor starts gets PATH without them (outsideWritesEnv).
 */
export function pathWarnings(dir: string, boardName: string, env: NodeJS.ProcessEnv): Problem[] {
  const { removed, writes } = outsideWritesEnv(dir, env);
  if (!writes || removed.length === 0) return [];
  const npx = removed.find((entry) => entry.endsWith(`${path.sep}node_modules${path.sep}.bin`));
  return [
    {
      file: boardName,
      message:
        `the PATH of this run ${removed.map((entry) => pathWords(entry, writes)).join('; ')}, ` +
        `where a fenced agent (${writes.roles.join(', ')}) can ` +
        `write${npx ? ' (npx puts node_modules/.bin there)' : ''}: ` +
        `taken out of the PATH of every program the supervisor starts (agents, hooks, git, bwrap), ` +
        `so that none started by name is one an agent put there.`,
    },
  ];
}

function roleProblems(
  role: Role,
  inputs: AgentInputs,
  dir: string,
  env: NodeJS.ProcessEnv,
  writes: FencedWrites,
  fenced: string,
): Problem[] {
  const fence = `or fence ${role.name} too (sandbox: true)`;
  const runs = `${fenced}, and ${role.name} runs unfenced`;
  const argv = role.command.map((part) => fill(part, inputs, role.file));
  const problems: Problem[] = [];
  const roleEnv = { ...env, ...role.env };
  const found = argv[0] === undefined ? undefined : findProgram(argv[0], roleEnv, dir);
  const program = found && 'file' in found ? found.file : undefined;
  const cli = agentCliOf(argv, program, dir);
  if (cli)
    problems.push({
      file: role.file,
      line: role.lineOf('/command'),
      message:
        `${role.name} runs ${cli.name} unfenced, while ${writes.roles.join(', ')} ` +
        `${writes.roles.length > 1 ? 'are' : 'is'} ` +
        `fenced: ${cli.name} loads settings, hooks and plugins from the board folder ` +
        `(${cli.project.join(', ')}) and from your home (${cli.home.join(', ')}), ${fenced}, and would run ` +
        `what an agent planted there as you. Fence ${role.name} too: every agent of a board with a fenced role ` +
        `is fenced (sandbox: {copy: [${cli.home.map((home) => JSON.stringify(home)).join(', ')}]}, see ` +
        `docs/sandbox.md).`,
    });
  const starter = argv[0] === undefined ? '' : path.basename(argv[0]);
  if (!cli && RUNS_THE_FOLDER.has(starter))
    problems.push({
      file: role.file,
      line: role.lineOf('/command/0'),
      message:
        `${starter} runs what the folder it starts in holds (node_modules/.bin, package.json scripts, a Makefile), ` +
        `and ${role.name} starts in the board folder, ${runs}. ` +
        `Give the program's full path in \`command:\` (outside the board folder), ${fence}.`,
    });
  const written = program === undefined ? undefined : writtenPart(argv, program, dir, writes);
  if (written)
    problems.push({
      file: role.file,
      line: role.lineOf(`/command/${argv.indexOf(written.word)}`),
      message:
        `${
          written.what === 'script'
            ? `the script ${written.word} given to ${argv[0] ?? ''}`
            : `the program ${written.word}`
        } lies in ${written.place}, ${runs}. ` +
        `Move it to a folder no fenced agent can write and give its full path in \`command:\`, ${fence}.`,
    });
  const entry = role.env.PATH === undefined ? undefined : writablePathEntry(role.env.PATH, writes);
  if (entry !== undefined)
    problems.push({
      file: role.file,
      line: role.lineOf('/env/PATH'),
      message:
        `env: PATH ${pathWords(entry, writes)}, ${runs}: ` +
        `a program it starts by name could be one an agent put there. Take it out of PATH, ${fence}.`,
    });
  return problems;
}

/**
 * The agent CLI an argv runs, behind any launcher (`npx claude`, `node …/claude-code/cli.js`), by
 * its words, the real path of its program, or of the script a launcher is given.
 */
function agentCliOf(argv: readonly string[], program: string | undefined, cwd: string): AgentConfig | undefined {
  const word = programWord(argv);
  const words = word ? [...argv.slice(0, word.index), word.name] : argv.slice(0, 1);
  const script = word && word.index > 0 && word.name.includes('/') ? path.resolve(cwd, word.name) : undefined;
  return agentConfigOf(words, program) ?? (script === undefined ? undefined : agentConfigOf([], script));
}

function pathWords(entry: string, writes: FencedWrites): string {
  return path.isAbsolute(entry)
    ? `lists ${entry}, in ${writablePlace(entry, writes) ?? ''}`
    : `lists ${JSON.stringify(entry)}, a folder relative to the working folder ` +
        `(the board folder, for agents and hooks)`;
}

// A command element as the run would fill it; '' when it cannot be (an unknown placeholder, reported on its own).
function fill(template: string, inputs: AgentInputs, where: string): string {
  try {
    return fillPlaceholders(template, { ...inputs, agents: AGENTS_DIR }, where);
  } catch {
    return '';
  }
}
