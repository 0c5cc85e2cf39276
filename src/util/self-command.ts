import { realpathSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { findProgram } from './process.js';

const NAME = 'kanban-supervisor';
// npm (npx, npm run) puts every node_modules/.bin above the folder, and its node-gyp shim, in
// front of PATH for the programs it starts; the person's own shell has none of them.
const ADDED_BY_NPM = /(?:^|[/\\])(?:node_modules[/\\]\.bin|node-gyp-bin)[/\\]?$/;

/**
 * The command a person types to run this program again, as every hint and help text shows
 * it: `kanban-supervisor` when their PATH finds this very program under that name (a global
 * install, `npm link`), else `npx kanban-supervisor` (a project's dependency, a clone).
 */
export function selfCommand(env: NodeJS.ProcessEnv = process.env): string {
  // In the image (its Dockerfile names it in KANBAN_SUPERVISOR_IMAGE) the person types docker run
  // on their own machine, with the board's folder mounted at /board, never the container's command.
  const image = env.KANBAN_SUPERVISOR_IMAGE;
  if (image) return `docker run --rm -v "$PWD:/board" ${image}`;
  return onPath(env) ? NAME : `npx ${NAME}`;
}

/** `selfCommand()` followed by `rest`, e.g. `npx kanban-supervisor status kanban.yaml`. */
export function runnable(rest: string, env: NodeJS.ProcessEnv = process.env): string {
  return rest ? `${selfCommand(env)} ${rest}` : selfCommand(env);
}

/** A word as a shell reads it back: left alone when it is plain, else single-quoted (pure). */
export function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

function onPath(env: NodeJS.ProcessEnv): boolean {
  const entries = (env.PATH ?? '')
    .split(path.delimiter)
    .filter((dir) => dir && !(env.npm_command && ADDED_BY_NPM.test(dir)));
  const found = findProgram(NAME, { PATH: entries.join(path.delimiter) }, process.cwd());
  if (!('file' in found)) return false;
  try {
    return realpathSync(found.file) === realpathSync(fileURLToPath(new URL('../cli.js', import.meta.url)));
  } catch {
    return false;
  }
}
