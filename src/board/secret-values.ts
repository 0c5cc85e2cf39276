import { secretValues } from '../util/secrets.js';
import { roleNames } from './fenced-roles.js';
import { readRole } from './role.js';

/**
 * The values a run, `try`, `logs` or `report` of this board never shows (util/secrets.ts): those
 * of the variables with a secret's name (…_TOKEN, …_API_KEY, …) in the supervisor's environment
 * and in every role file's `env:`, as the role files are now. Longest first, so one is masked whole.
 */
export function boardSecrets(boardDir: string, env: Readonly<Record<string, string | undefined>>): string[] {
  const roles = roleNames(boardDir).map((name) => {
    const check = readRole(boardDir, name);
    return (check.role ?? check.draft)?.env ?? {};
  });
  const values = new Set([env, ...roles].flatMap((vars) => secretValues(vars)));
  return [...values].sort((a, b) => b.length - a.length);
}
