import { isRunOutputPath } from '../board/run-output.js';
import { maskText } from '../util/secrets.js';
import { cleanLine } from '../util/clean-text.js';

/**
 * The pure parts of talking to git: which paths `git status --porcelain=v1 -z` lists, which of
 * them are the supervisor's own output, and the environment git gets. Paths are kept as "byte
 * strings" (latin1, one character per byte) from git's output to its input, so a name that is
 * not UTF-8 still names the same file; `shownPath` turns one into text for people.
 */

// Variables that point git at another repository, index or object store: set by a git hook or
// a person's shell for *their* git, never meant for ours (we find the board's own repository).
const INHERITED_GIT = [
  'GIT_DIR',
  'GIT_WORK_TREE',
  'GIT_INDEX_FILE',
  'GIT_OBJECT_DIRECTORY',
  'GIT_ALTERNATE_OBJECT_DIRECTORIES',
  'GIT_COMMON_DIR',
  'GIT_NAMESPACE',
  'GIT_PREFIX',
];

/**
 * The environment git runs with: the caller's, without the variables above,
 * never prompting, pathspecs taken literally (pure).
 */
export function gitEnv(
  env: Readonly<Record<string, string | undefined>>,
  more: Record<string, string> = {},
): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = { ...env };
  for (const name of INHERITED_GIT) delete out[name];
  // An agent may have made a file named `*` or `:(glob)x`: a path is only ever itself.
  return { ...out, GIT_TERMINAL_PROMPT: '0', GIT_LITERAL_PATHSPECS: '1', ...more };
}

/**
 * The paths `git status --porcelain=v1 -z` lists (pure): `XY path`, and for a rename or copy
 * `XY to` followed by `from` (both listed: each changed). A path ending in `/` is a folder git
 * did not look into (a nested repository).
 */
export function parseStatus(output: string): string[] {
  const fields = output.split('\0');
  const paths: string[] = [];
  for (let i = 0; i < fields.length; i++) {
    const entry = fields[i] as string;
    if (entry.length < 4) continue; // the empty field after the last NUL
    paths.push(entry.slice(3));
    if (/[RC]/.test(entry.slice(0, 2)) && i + 1 < fields.length) paths.push(fields[++i] as string);
  }
  return [...new Set(paths)];
}

/**
 * Whether a repository-relative path is the supervisor's own output beside the board — its state
 * folder `.kanban-supervisor/` or `supervisor.log.md`, what `init` puts in .gitignore — which
 * no commit holds (pure). `board` is the board folder relative to the repository's top, '' at the top.
 */
export function isRunOutput(file: string, board: string): boolean {
  const prefix = board === '' ? '' : `${board}/`;
  if (!file.startsWith(prefix)) return false;
  return isRunOutputPath(file.slice(prefix.length));
}

/** A byte-string path as text for a message (pure). */
export function shownPath(file: string): string {
  return Buffer.from(file, 'latin1').toString('utf8');
}

/** Paths as a NUL-separated list for `--pathspec-from-file=- --pathspec-file-nul` (pure). */
export function pathList(files: readonly string[]): Buffer {
  return Buffer.from(files.map((f) => `${f}\0`).join(''), 'latin1');
}

/**
 * Paths for `git hash-object --stdin-paths`, one a line, each in C quotes as git reads them there,
 * so that any byte but NUL — a newline, a quote, a trailing CR — names the same file (pure).
 */
export function quotedPaths(files: readonly string[]): Buffer {
  const quoted = files.map((file) => {
    const escaped = [...file].map((c) =>
      c < ' ' || c === '\x7f' || c === '"' || c === '\\' ? `\\${c.charCodeAt(0).toString(8).padStart(3, '0')}` : c,
    );
    return `"${escaped.join('')}"\n`;
  });
  return Buffer.from(quoted.join(''), 'latin1');
}

/** The first lines of what git said, cleaned, for a one-line message (pure). */
export function gitSaid(stderr: string, stdout = '', lines = 4): string {
  const said = `${stderr}\n${stdout}`
    .split('\n')
    .map((line) => maskText(cleanLine(line)))
    .filter((line) => line !== '' && !line.startsWith('hint:'));
  return said.slice(0, lines).join(' / ') || '(git said nothing)';
}
