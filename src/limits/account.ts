import { createHash } from 'node:crypto';
import path from 'node:path';
import { agentFor, programOf } from '../agents/index.js';

/**
 * The account a usage limit belongs to (SPEC §4b): the CLI and its login as the agent's own
 * environment gives it — the config folder the CLI reads, and a fingerprint of each API key or
 * token variable set. The secret itself never leaves this file: only a short sha256 prefix does.
 */
export interface Account {
  /** The CLI: a known adapter's name, or for any other command its program's name. */
  cli: string;
  /** The account in words, without secrets: `claude · /home/me/.claude · ANTHROPIC_API_KEY sha256:1a2b…`. */
  description: string;
  /** The file name of its shared entry: a hash of the description. */
  file: string;
}

// Enough to tell two keys apart, far too little to learn anything of the key.
const FINGERPRINT_HEX = 12;

// The fingerprint of a secret that may be shown and stored: a sha256 prefix.
function fingerprint(secret: string): string {
  return `sha256:${createHash('sha256').update(secret).digest('hex').slice(0, FINGERPRINT_HEX)}`;
}

/**
 * The account an agent's argv runs as, from its environment (pure): `home` stands for HOME when
 * the environment has none, `cwd` anchors a relative config folder.
 */
export function accountOf(
  command: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  home: string,
  cwd: string,
): Account {
  const agent = agentFor(command);
  const cli = agent.name === 'generic' ? programOf(command) : agent.name;
  // The first variable set names the folder; with none set (not even HOME), the HOME pair with `home`.
  const [variable, under] = agent.login.folder.find(([name]) => env[name]) ??
    agent.login.folder.find(([name]) => name === 'HOME') ?? ['HOME', ''];
  const folder = path.resolve(cwd, env[variable] || home, under);
  const keys = agent.login.keys.filter((key) => env[key]).map((key) => `${key} ${fingerprint(env[key] as string)}`);
  const description = [cli, folder, ...keys].join(' · ');
  return { cli, description, file: `${createHash('sha256').update(description).digest('hex').slice(0, 32)}.json` };
}
