import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { InputError } from '../errors.js';

/** The agents `init` has presets for. */
export const PRESET_AGENTS = ['shell', 'claude', 'codex', 'gemini'] as const;
/** One of PRESET_AGENTS. */
export type PresetAgent = (typeof PRESET_AGENTS)[number];

/** Options of `kanban-supervisor init`. */
export interface InitOptions {
  dir: string;
  agent: PresetAgent;
  force?: boolean;
}

const PRESETS = new URL('../../presets/', import.meta.url);

/** The files of a new board for an agent preset: board-relative path → content (pure but for reading the presets). */
export function presetFiles(agent: PresetAgent): Record<string, string> {
  const read = (name: string) => readFileSync(new URL(name, PRESETS), 'utf8');
  return {
    'kanban.yaml': read('board/kanban.yaml'),
    'tasks/001-example.md': agent === 'shell' ? read('shell/task.md') : read('board/task.md'),
    'roles/implementor.md': read(`${agent}/implementor.md`),
    'roles/architect.md': read(`${agent}/architect.md`),
    'roles/manager.md': read(`${agent}/manager.md`),
  };
}

/** Scaffold a board in `dir`; refuses to overwrite any existing file unless `force`. Returns the files written. */
export function init(options: InitOptions): string[] {
  if (!PRESET_AGENTS.includes(options.agent)) {
    throw new InputError(`--agent must be one of ${PRESET_AGENTS.join(', ')} (got "${options.agent}").`);
  }
  const files = presetFiles(options.agent);
  const existing = Object.keys(files).filter((name) => existsSync(path.join(options.dir, name)));
  if (existing.length && !options.force) {
    throw new InputError(`${path.join(options.dir, existing[0] as string)} already exists${existing.length > 1 ? ` (and ${existing.length - 1} more board file(s))` : ''}; nothing was written. Use another folder, or pass --force to overwrite.`);
  }
  for (const [name, content] of Object.entries(files)) {
    const file = path.join(options.dir, name);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, content);
  }
  return Object.keys(files);
}

// How to get each agent CLI ready to run unattended: installed, and logged in or given a key.
const SETUP: Record<Exclude<PresetAgent, 'shell'>, string> = {
  claude: 'Install Claude Code (npm install -g @anthropic-ai/claude-code) and log in once by running `claude`, or set ANTHROPIC_API_KEY.',
  codex: 'Install Codex (npm install -g @openai/codex) and run `codex login`, or set CODEX_API_KEY.',
  gemini: 'Install Gemini CLI (npm install -g @google/gemini-cli) and log in once by running `gemini`, or set GEMINI_API_KEY.',
};

/** What to tell the person after `init`. */
export function nextSteps(dir: string, agent: PresetAgent, written: string[]): string {
  const board = path.join(dir, 'kanban.yaml');
  const lines = [`Created a ${agent} board in ${dir}: ${written.join(', ')}.`, 'Next:'];
  lines.push(`  1. Describe your work in ${path.join(dir, 'tasks/001-example.md')} (one file per task, listed in kanban.yaml).`);
  if (agent !== 'shell') {
    lines.push(`  2. ${SETUP[agent]}`);
    lines.push(`     The roles/*.md files say which permissions the agent gets; see the README, "Agent CLIs", to change them.`);
  }
  lines.push(`  ${agent === 'shell' ? 2 : 3}. Check it:  npx kanban-supervisor validate ${board}`);
  lines.push(`  ${agent === 'shell' ? 3 : 4}. Run it:    npx kanban-supervisor ${board}`);
  lines.push('Run output goes to .kanban-supervisor/ and supervisor.log.md beside kanban.yaml; you may want to git-ignore them.');
  return `${lines.join('\n')}\n`;
}
