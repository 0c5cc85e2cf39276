import { closeSync, fstatSync, lstatSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { AGENTS } from '../agents/index.js';
import { InputError } from '../errors.js';
import { openAppend, openExclusive } from '../fs/safe-open.js';
import { readFromStart } from '../fs/safe-read.js';
import { ensureRealDir, isSymlink } from '../fs/real-dir.js';
import { plantedSymlink } from '../fs/refuse.js';
import { replaceFileAtomic, writeWhole } from '../fs/replace.js';
import { RUN_OUTPUT } from '../board/run-output.js';
import { runnable, shellWord } from '../util/self-command.js';
import { importBoard } from './init-from.js';

/**
 * Agent CLIs with a preset but no adapter (docs/agent-clis-more.md): how to get each ready to
 * run unattended. Their failures are read by the `failures:` patterns of their role files.
 */
const GENERIC_PRESETS: Readonly<Record<string, string>> = {
  opencode:
    'Install opencode (npm install -g opencode-ai) and set its provider in ~/.config/opencode/opencode.json ' +
    '(or OPENCODE_CONFIG).',
  copilot:
    'Install GitHub Copilot CLI (npm install -g @github/copilot) and log in, or set COPILOT_PROVIDER_* and ' +
    'COPILOT_MODEL for your own model.',
  kilo:
    'Install Kilo Code CLI (npm install -g @kilocode/cli) and set its provider in ~/.config/kilo/kilo.json ' +
    '(or KILO_CONFIG).',
};

/**
 * Where the Agent Client Protocol is the better route (docs/agent-clis.md, "Routes"): the workers
 * of `<cli>-acp` speak ACP (presets/<cli>-acp/), its Manager is the CLI's own preset.
 */
const ACP_PRESETS: readonly string[] = ['opencode', 'kilo', 'copilot'];

/** The agents `init` has presets for: the shipped shell agent, each known agent CLI's, then the others'. */
const PRESET_AGENTS: readonly string[] = [
  'shell',
  ...AGENTS.flatMap((agent) => agent.preset ?? []),
  ...Object.keys(GENERIC_PRESETS),
  ...ACP_PRESETS.map((cli) => `${cli}-acp`),
];

/** Options of `kanban-supervisor init`. */
export interface InitOptions {
  dir: string;
  /** One of the presets: `shell` or a known agent CLI's (presets/<name>/). */
  agent: string;
  force?: boolean;
  /** `backlog` (the Backlog.md project in `dir`) or a task-master tasks.json: the board people keep (init-from.ts). */
  from?: string;
}

const PRESETS = new URL('../../presets/', import.meta.url);

/** The files of a new board for an agent preset: board-relative path → content (pure but for reading the presets). */
export function presetFiles(agent: string): Record<string, string> {
  const read = (name: string) => readFileSync(new URL(name, PRESETS), 'utf8');
  return {
    'kanban.yaml': read('board/kanban.yaml'),
    'tasks/001-example.md': agent === 'shell' ? read('shell/task.md') : read('board/task.md'),
    'roles/implementor.md': read(`${agent}/implementor.md`),
    'roles/architect.md': read(`${agent}/architect.md`),
    'roles/manager.md': read(`${agent.replace(/-acp$/, '')}/manager.md`),
  };
}

/** What `init` wrote: the board files, and what it did to the folder's .gitignore. */
export interface InitResult {
  files: string[];
  gitignore: GitignoreChange;
  /** With --from: what was taken from the board people keep. */
  imported?: string;
}

/** Scaffold a board in `dir`; refuses to overwrite any existing board file unless `force`. */
export function init(options: InitOptions): InitResult {
  if (!PRESET_AGENTS.includes(options.agent)) {
    throw new InputError(`--agent must be one of ${PRESET_AGENTS.join(', ')} (got "${options.agent}").`);
  }
  const preset = presetFiles(options.agent);
  const roles = Object.fromEntries(Object.entries(preset).filter(([name]) => name.startsWith('roles/')));
  const imported = options.from === undefined ? undefined : importBoard(options.dir, options.from, roles);
  const files = imported?.files ?? preset;
  const existing = Object.keys(files).filter((name) => lexists(path.join(options.dir, name)));
  if (existing.length && !options.force) {
    throw new InputError(
      `${path.join(options.dir, existing[0] as string)} already exists` +
        `${existing.length > 1 ? ` (and ${existing.length - 1} more board file(s))` : ''}; ` +
        `nothing was written. Use another folder, or pass --force to overwrite.`,
    );
  }
  // The folder the person named is theirs (a symlink they made included); inside it, nothing is
  // written through a link: roles/, tasks/ and every file go through the safe-write path.
  mkdirSync(options.dir, { recursive: true });
  // Every refusal before the first write, so a refused init leaves no half board behind.
  for (const folder of new Set(Object.keys(files).map((name) => path.posix.dirname(name))))
    ensureRealDir(options.dir, folder, WALK);
  const linked = [...Object.keys(files), '.gitignore'].find((name) => isSymlink(path.join(options.dir, name)));
  if (linked !== undefined) throw plantedSymlink(path.join(options.dir, linked));
  for (const [name, content] of Object.entries(files)) {
    if (lexists(path.join(options.dir, name))) replaceFileAtomic(options.dir, name, content, WALK);
    else writeNew(options.dir, name, content);
  }
  const gitignore = ignoreRunOutput(options.dir);
  return { files: Object.keys(files), gitignore, ...(imported && { imported: imported.said }) };
}

/** What happened to .gitignore: written anew, the missing lines appended, or left as it was (it had them). */
export type GitignoreChange = 'created' | 'appended' | 'kept';

/**
 * Keep the run output out of git: a new .gitignore, or the lines an existing one lacks appended
 * to it. An existing file is never rewritten: its lines, order and comments are the person's.
 */
export function ignoreRunOutput(dir: string): GitignoreChange {
  const header = '# kanban-supervisor run output (attempt logs, events, lock, Supervisor Log)\n';
  if (!lexists(path.join(dir, '.gitignore'))) {
    writeNew(dir, '.gitignore', `${header}${RUN_OUTPUT.join('\n')}\n`);
    return 'created';
  }
  // Opened for appending the safe way: a symlink, a FIFO or a second hard link there is refused.
  const fd = openAppend(dir, '.gitignore', { ...WALK, readable: true });
  try {
    return appendMissing(fd, path.join(dir, '.gitignore'), header);
  } finally {
    closeSync(fd);
  }
}

function appendMissing(fd: number, shown: string, header: string): GitignoreChange {
  const text = readFromStart(fd, fstatSync(fd).size).toString('utf8');
  // `/.kanban-supervisor`, `.kanban-supervisor` and `.kanban-supervisor/` all ignore the folder here.
  const has = new Set(text.split(/\r?\n/).map((line) => line.trim().replace(/^\//, '').replace(/\/$/, '')));
  const missing = RUN_OUTPUT.filter((line) => !has.has(line.replace(/\/$/, '')));
  if (missing.length === 0) return 'kept';
  writeWhole(
    fd,
    Buffer.from(`${text === '' || text.endsWith('\n') ? '' : '\n'}${header}${missing.join('\n')}\n`),
    shown,
  );
  return 'appended';
}

// Folders init makes are the person's board (0o777 less the umask), not the state's 0o700.
const WALK = { dirMode: 0o777 };

// A new file created O_EXCL|O_NOFOLLOW in real folders (fs/safe-open.ts), mode 0o666 less the umask.
function writeNew(dir: string, name: string, content: string): void {
  const fd = openExclusive(dir, name, { ...WALK, mode: 0o666 });
  try {
    writeWhole(fd, Buffer.from(content), path.join(dir, name));
  } finally {
    closeSync(fd);
  }
}

// Whether a name is taken, a dangling symlink included.
function lexists(file: string): boolean {
  try {
    lstatSync(file);
    return true;
  } catch {
    return false;
  }
}

const IGNORED: Record<GitignoreChange, string> = {
  created: 'a new .gitignore keeps it out of git',
  appended: 'the lines .gitignore lacked for it were appended to it',
  kept: '.gitignore already keeps it out of git',
};

/** What to tell the person after `init`, with commands they can paste. */
export function nextSteps(dir: string, agent: string, written: InitResult): string {
  // A folder argument means its kanban.yaml; the current folder needs none.
  const board = dir === '.' || dir === '' ? '' : ` ${shellWord(dir)}`;
  const shown =
    written.files.length > 8 ? [...written.files.slice(0, 7), `${written.files.length - 7} more`] : written.files;
  const lines = [`Created a ${agent} board in ${dir}: ${shown.join(', ')}.`, 'Next:'];
  lines.push(
    written.imported
      ? `  1. ${written.imported}`
      : `  1. Describe your work in ${path.join(dir, 'tasks/001-example.md')} (one file per task, listed in ` +
          `kanban.yaml).`,
  );
  // How to get the agent CLI ready to run unattended: installed, and logged in or given a key.
  const setup = AGENTS.find((cli) => cli.preset === agent)?.setup ?? GENERIC_PRESETS[agent.replace(/-acp$/, '')];
  if (setup) {
    lines.push(`  2. ${setup}`);
    lines.push(
      `     The roles/*.md files say which permissions the agent gets; see docs/agent-clis.md to change them.`,
    );
  }
  if (agent !== 'shell')
    lines.push(
      `     The Manager (roles/manager.md) asks ${agent} only when a worker's reply is not ok; an ok reply ` +
        `moves on without a model run. For a model on every step, follow the comment above its command.`,
    );
  const step = setup ? 3 : 2;
  lines.push(`  ${step}. Check it:  ${runnable(`validate${board}`)}`);
  lines.push(`  ${step + 1}. Run it:    ${runnable(board.trim())}`);
  lines.push(`  ${step + 2}. Read it:   ${runnable(`status${board}`)}   (then: logs, report)`);
  lines.push(
    `Run output goes to .kanban-supervisor/ and supervisor.log.md beside kanban.yaml; ${IGNORED[written.gitignore]}.`,
  );
  return `${lines.join('\n')}\n`;
}
