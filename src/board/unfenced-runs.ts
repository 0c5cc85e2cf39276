import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { findProgram } from '../util/process.js';
import { fencedWrites, writablePathEntry, writablePlace, writtenPart, type FencedWrites } from './fenced-writes.js';
import { AGENTS_DIR, fillPlaceholders, type AgentInputs } from './inputs.js';
import type { Problem } from './read-board.js';
import type { Role } from './role.js';

/** kanban-supervisor's own folder (src/ or dist/ is one below it). */
const INSTALLED = path.resolve(fileURLToPath(new URL('../..', import.meta.url)));

/**
 * What a board with a fenced role would run unfenced from where a fenced agent can write, as
 * problems for `validate` and the run's pre-flight (reads only): an unfenced role's program or
 * the script its interpreter is given, a PATH entry there (a program started by name — git,
 * bwrap, an agent's — could be one an agent put there), kanban-supervisor's own files or the
 * node running it. None when no role is fenced. `unfenced` are the roles the board runs unfenced,
 * each with inputs like a run's, to fill its command.
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
  const entry = writablePathEntry(env.PATH, writes);
  if (entry !== undefined)
    problems.push({
      file: boardName,
      message:
        `the PATH of this run ${pathWords(entry, writes)}, ${fenced}: ` +
        `a program started by name (git, bwrap, an unfenced agent) could be one an agent put there. ` +
        `Take it out of PATH.`,
    });
  for (const { role, inputs } of unfenced) problems.push(...roleProblems(role, inputs, dir, env, writes, fenced));
  return problems;
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
  const written = found && 'file' in found ? writtenPart(argv, found.file, dir, writes) : undefined;
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
