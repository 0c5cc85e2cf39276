import { lstatSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Linker } from './attempt-row.js';
import { maskText } from '../util/secrets.js';

const within = (file: string, dir: string) => file.startsWith(`${dir}${path.sep}`);

/**
 * A page written outside the board folder (`report --out`, a CI artifact, `kubectl cp`) links the
 * attempts' output and the tasks' work logs by copies beside it, in `filesDir`, so its links work
 * wherever the folder is opened. Each file is copied once, the first time it is linked, with the
 * board's secret values masked as the page masks them. Only regular files inside the board folder
 * are copied (a link an agent planted there is not followed); anything else keeps its link to the
 * board, as a page inside it has.
 */
export function carryingLinker(options: {
  boardDir: string;
  outDir: string;
  filesDir: string;
  secrets: readonly string[];
  fallback: Linker;
}): Linker {
  const { boardDir, outDir, filesDir, secrets, fallback } = options;
  const done = new Map<string, string>();
  return (boardRelative) => {
    const known = done.get(boardRelative);
    if (known !== undefined) return known;
    const from = path.resolve(boardDir, boardRelative);
    const to = path.resolve(filesDir, path.relative(boardDir, from));
    let href: string;
    try {
      if (!within(from, boardDir) || !within(to, filesDir) || !lstatSync(from).isFile()) throw new Error('not carried');
      mkdirSync(path.dirname(to), { recursive: true });
      writeFileSync(to, maskText(readFileSync(from, 'utf8'), secrets));
      href = path.relative(outDir, to).split(path.sep).map(encodeURIComponent).join('/');
    } catch {
      href = fallback(boardRelative);
    }
    done.set(boardRelative, href);
    return href;
  };
}
