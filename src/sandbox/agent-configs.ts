import path from 'node:path';
import { readRegular } from '../fs/safe-read.js';
import { isWithin, realOr } from '../util/real-path.js';
import { expandPath, type SandboxSpec } from '../board/role-sandbox.js';

/**
 * An agent CLI that loads settings, hooks, plugins or MCP servers — programs it runs — from the
 * folder it works in and from the user's home: started unfenced on a board where a fenced agent
 * writes, it would run what that agent planted (SPEC §5c). Known by its program's name, by the
 * name its real path has (a link followed), or by the npm package that real path lies in.
 */
export interface AgentConfig {
  /** The CLI in words: `Claude Code`. */
  name: string;
  programs: readonly string[];
  packages: readonly string[];
  /** What it loads from its working folder (the board folder), for messages and docs. */
  project: readonly string[];
  /** Its configuration in the home folder (`~/…`): never the fenced agent's to write. */
  home: readonly string[];
}

export const AGENT_CONFIGS: readonly AgentConfig[] = [
  {
    name: 'Claude Code',
    programs: ['claude'],
    packages: ['@anthropic-ai/claude-code'],
    project: ['.claude/', '.mcp.json'],
    home: ['~/.claude', '~/.claude.json'],
  },
  { name: 'Codex', programs: ['codex'], packages: ['@openai/codex'], project: ['.codex/'], home: ['~/.codex'] },
  {
    name: 'Gemini CLI',
    programs: ['gemini'],
    packages: ['@google/gemini-cli'],
    project: ['.gemini/'],
    home: ['~/.gemini'],
  },
  {
    name: 'opencode',
    programs: ['opencode'],
    packages: ['opencode-ai'],
    project: ['.opencode/', 'opencode.json'],
    home: ['~/.config/opencode', '~/.opencode'],
  },
  {
    name: 'Kilo',
    programs: ['kilo', 'kilocode'],
    packages: ['@kilocode/cli'],
    project: ['.kilo/', '.kilocode/', '.opencode/', 'kilo.json'],
    home: ['~/.config/kilo', '~/.kilocode'],
  },
  {
    name: 'Copilot CLI',
    programs: ['copilot'],
    packages: ['@github/copilot'],
    project: ['.github/'],
    home: ['~/.copilot'],
  },
  { name: 'Qwen Code', programs: ['qwen'], packages: ['@qwen-code/qwen-code'], project: ['.qwen/'], home: ['~/.qwen'] },
  { name: 'Cursor CLI', programs: ['cursor-agent'], packages: [], project: ['.cursor/'], home: ['~/.cursor'] },
  { name: 'Aider', programs: ['aider'], packages: [], project: ['.aider.conf.yml'], home: ['~/.aider.conf.yml'] },
  { name: 'Amp', programs: ['amp'], packages: ['@sourcegraph/amp'], project: ['.amp/'], home: ['~/.config/amp'] },
  { name: 'Goose', programs: ['goose'], packages: [], project: ['.goosehints'], home: ['~/.config/goose'] },
  {
    name: 'Crush',
    programs: ['crush'],
    packages: ['@charmland/crush'],
    project: ['.crush/'],
    home: ['~/.config/crush'],
  },
  { name: 'Droid', programs: ['droid'], packages: [], project: ['.factory/'], home: ['~/.factory'] },
];

/**
 * The agent CLI `words` name (a program word, a package name with or without its version) or
 * `file` is (its real path, or the npm package it is installed in); undefined for any other.
 */
export function agentConfigOf(words: readonly string[], file?: string): AgentConfig | undefined {
  const names = words.map((word) => {
    const name = word.replace(/(.)@[^/@]*$/, '$1');
    return { name, base: path.basename(name).replace(/\.(exe|cmd|js|mjs|cjs)$/, '') };
  });
  const real = file === undefined ? undefined : realOr(file);
  const holder = real === undefined ? undefined : packageOf(real);
  return AGENT_CONFIGS.find(
    (cli) =>
      names.some(({ name, base }) => cli.programs.includes(base) || cli.packages.includes(name)) ||
      (real !== undefined && cli.programs.includes(path.basename(real).replace(/\.(exe|cmd|js|mjs|cjs)$/, ''))) ||
      (holder !== undefined && cli.packages.includes(holder)),
  );
}

// The name in the nearest package.json above `file` (the npm package it is part of), if any.
function packageOf(program: string): string | undefined {
  for (let dir = path.dirname(program); dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const file = path.join(dir, 'package.json');
    let text: string | undefined;
    try {
      text = readRegular(file, file, { maxBytes: 64 * 1024 });
      if (text === undefined) continue;
      const name = (JSON.parse(text) as { name?: unknown }).name;
      return typeof name === 'string' ? name : undefined;
    } catch {
      return undefined; // not a regular file, cut short or not JSON: no package we know
    }
  }
  return undefined;
}

/**
 * The paths a role declares writable (`sandbox: write:`) that are, hold or lie in an agent CLI's
 * configuration in the home folder: whatever a fenced agent writes there, every later session of
 * that CLI loads unfenced — the Manager's, the user's own (pure; `home` is $HOME).
 */
export function configWrites(
  spec: Pick<SandboxSpec, 'write'>,
  boardDir: string,
  home: string | undefined,
): Array<{ written: string; cli: AgentConfig; config: string }> {
  return spec.write.flatMap((written) => {
    const file = expandPath(written, boardDir, home);
    if (file === undefined) return [];
    for (const cli of AGENT_CONFIGS)
      for (const config of cli.home) {
        const at = expandPath(config, boardDir, home);
        if (at !== undefined && (isWithin(at, file) || isWithin(file, at))) return [{ written, cli, config }];
      }
    return [];
  });
}
