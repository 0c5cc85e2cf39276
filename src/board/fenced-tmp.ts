import { realpathSync } from 'node:fs';
import path from 'node:path';
import { AGENTS_DIR, fillPlaceholders } from './inputs.js';
import type { Problem } from './read-board.js';
import type { Role } from './role.js';
import { findProgram } from '../util/process.js';

const TMP = '/tmp';
const within = (file: string, dir: string) => file === dir || file.startsWith(`${dir}/`);

/**
 * A fenced role whose program, or a file its command names, lies in /tmp outside the board folder
 * (validate and the run's pre-flight; reads only): the fence gives the agent an empty /tmp of its
 * own, so it would fail as "Cannot find module …" at every attempt. A package installed under /tmp
 * (the README's install done in /tmp) puts {{agents}} there too.
 */
export function fencedTmpProblems(role: Role, boardDir: string, env: NodeJS.ProcessEnv): Problem[] {
  if (!role.sandbox) return [];
  const shown = [boardDir, ...role.sandbox.read, ...role.sandbox.write].map((p) => real(path.resolve(boardDir, p)));
  const words = role.command.map((word) => {
    try {
      return fillPlaceholders(word, { role: 'x', kanban_file: 'kanban.yaml', agents: AGENTS_DIR }, role.file);
    } catch {
      return word;
    }
  });
  const program = words[0] === undefined ? undefined : findProgram(words[0], { ...env, ...role.env }, boardDir);
  const files = [
    ...(program && 'file' in program ? [program.file] : []),
    ...words.slice(1).filter((word) => path.isAbsolute(word)),
  ];
  const hidden = files.map(real).find((file) => within(file, TMP) && !shown.some((dir) => within(file, dir)));
  if (hidden === undefined) return [];
  return [
    {
      file: role.file,
      line: role.lineOf('/sandbox'),
      message:
        `the fenced agent's command needs ${hidden}, under /tmp, but the fence gives the agent an empty /tmp ` +
        `of its own, so it would fail at every attempt (Node says "Cannot find module"). Install it, or ` +
        `kanban-supervisor, outside /tmp, or move the board out of /tmp beside it.`,
    },
  ];
}

function real(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    return file;
  }
}
