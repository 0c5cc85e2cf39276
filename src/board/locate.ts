import { existsSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { InputError } from '../errors.js';
import { runnable, shellWord } from '../util/self-command.js';
import { readFailure } from './board-file.js';

/** The board file's usual name: a folder argument means the one inside it. */
export const BOARD_NAME = 'kanban.yaml';

/**
 * The kanban.yaml a command works on, as the person named it (so messages show their path):
 * none means `./kanban.yaml`, a folder means its `kanban.yaml`, anything else is the file
 * itself (whose problems the board reader reports). Reads only.
 */
export function locateBoard(arg: string | undefined, cwd = process.cwd(), env = process.env): string {
  if (arg === undefined) {
    if (!existsSync(path.join(cwd, BOARD_NAME))) {
      // In the image (its Dockerfile sets KANBAN_SUPERVISOR_IMAGE to its name) the board is mounted at /board.
      const image = env.KANBAN_SUPERVISOR_IMAGE;
      if (image && cwd === '/board')
        throw new InputError(
          `there is no ${BOARD_NAME} in /board: mount your board's folder there. ` +
            `In that folder: docker run --rm -v "$PWD:/board" ${image}`,
        );
      const above = boardAbove(cwd);
      throw new InputError(
        `there is no ${BOARD_NAME} in this folder (${cwd}). ` +
          (above
            ? `This folder is inside the board ${above}: pass its path after the command ` +
              `(e.g. \`${runnable(shellWord(above))}\`), or run from its folder (cd ${path.dirname(above)}).`
            : `Pass the path of a board (its kanban.yaml or its folder), or create one here: ${runnable('init')}`),
      );
    }
    return BOARD_NAME;
  }
  if (!isFolder(path.resolve(cwd, arg))) return arg;
  const file = path.join(arg, BOARD_NAME);
  if (!existsSync(path.resolve(cwd, file))) {
    throw new InputError(
      `${arg} is a folder without a ${BOARD_NAME}. Pass the path of a board (its kanban.yaml or its folder), ` +
        `or create one there: ${runnable(`init ${shellWord(arg)}`)}`,
    );
  }
  return file;
}

// A kanban.yaml in a folder above (run inside tasks/ or roles/), as a relative path: ../kanban.yaml.
function boardAbove(cwd: string): string | undefined {
  for (let up = 1, dir = path.dirname(cwd); up <= 3 && dir !== path.dirname(dir); up++, dir = path.dirname(dir))
    if (existsSync(path.join(dir, BOARD_NAME))) return path.join(...Array<string>(up).fill('..'), BOARD_NAME);
  return undefined;
}

function isFolder(file: string): boolean {
  try {
    return statSync(file).isDirectory();
  } catch {
    return false;
  }
}

/** The board file's real path, so that every name of it meets the same lock and state folder. */
export function realBoardPath(file: string): string {
  try {
    return realpathSync.native(path.resolve(file));
  } catch (error) {
    throw new InputError(readFailure(file, error));
  }
}
