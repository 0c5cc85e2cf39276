import path from 'node:path';
import type { Problem } from '../board/read-board.js';
import type { Role } from '../board/role.js';
import type { HostUser } from './fence.js';
import { commandFiles, reachable, supervisorFolders } from './place.js';
import { findProgram } from '../util/process.js';

/**
 * A fenced role whose program, or a file its command names, the agent's host user cannot reach
 * (validate and the run's pre-flight; reads only). Run by root, the fenced agent is the board
 * folder's owner (sandbox/owner.ts): a program under a folder closed to that user (a `mktemp -d`
 * checkout, root's home) is not shown in the fence, and would fail at every attempt as
 * "Cannot find module …" or "No such file".
 */
export function unreachableCommandProblems(
  role: Role,
  boardDir: string,
  env: NodeJS.ProcessEnv,
  user: HostUser | undefined,
): Problem[] {
  if (!role.sandbox || user === undefined) return [];
  const [first, ...rest] = role.command;
  const program = first === undefined ? undefined : findProgram(first, { ...env, ...role.env }, boardDir);
  const usesAgents = role.command.some((word) => word.includes('{{agents}}'));
  const files = [
    ...(program && 'file' in program ? [program.file] : []),
    ...commandFiles(rest.filter((word) => !word.includes('{{'))),
    // A folder is reached when a name in it is: the user must search the folder itself too.
    ...(usesAgents ? supervisorFolders().map((dir) => path.join(dir, 'any')) : []),
  ];
  const closed = files.find((file) => !reachable(file, user));
  if (closed === undefined) return [];
  return [
    {
      file: role.file,
      line: role.lineOf('/sandbox'),
      message:
        `the fenced agent runs as uid ${user.uid}, the board folder's owner, who cannot reach ${closed} ` +
        `(a folder above it is closed to that user), so it would fail at every attempt. Give that user ` +
        `access to it (chmod o+x on the closed folder), or install it where that user can reach it.`,
    },
  ];
}
