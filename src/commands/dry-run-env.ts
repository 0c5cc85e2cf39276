import { TAG_VARIABLE } from '../agent/tag.js';
import { isSecretName, mask } from '../util/secrets.js';

/** One environment variable as the dry run shows it. */
export interface ShownVariable {
  name: string;
  /** The value, or `…(set, N chars)` when masked. */
  value: string;
  /** An input of the run (KANBAN_*), the role file's `env:`, or inherited from the supervisor's environment. */
  from: 'input' | 'role' | 'inherited';
  masked: boolean;
}

/**
 * The variables worth showing before a run: the KANBAN_* inputs as they are, the role file's
 * `env:` masked (it is where keys go), and inherited variables whose names look like a key or
 * a secret, masked, so a person sees whether the agent gets its login without seeing it (pure).
 */
export function maskedEnv(
  agentEnv: Readonly<Record<string, string>>,
  inherited: NodeJS.ProcessEnv,
  roleEnv: Readonly<Record<string, string>>,
): ShownVariable[] {
  const shown: ShownVariable[] = [];
  for (const [name, value] of Object.entries(agentEnv)) {
    if (name === TAG_VARIABLE) continue; // names the run, which a dry run does not have
    if (name.startsWith('KANBAN_') && !Object.hasOwn(roleEnv, name))
      shown.push({ name, value, from: 'input', masked: false });
    else if (Object.hasOwn(roleEnv, name) || inherited[name] !== value)
      shown.push({ name, value: mask(value), from: 'role', masked: true });
    else if (isSecretName(name)) shown.push({ name, value: mask(value), from: 'inherited', masked: true });
  }
  const order = { input: 0, role: 1, inherited: 2 };
  return shown.sort((a, b) => order[a.from] - order[b.from] || (a.from === 'input' ? 0 : a.name.localeCompare(b.name)));
}
