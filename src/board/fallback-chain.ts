import type { Problem } from './read-board.js';
import { readRole, type Role } from './role.js';
import { roleFilePath } from './role-names.js';

/**
 * A role's agents in the order they take its steps (SPEC §5c, fallback agents): the role itself,
 * then each role its `fallback:` names, each followed by its own fallbacks (depth first), every
 * role once. A fallback whose file cannot be read is kept in the chain without its own: loading
 * it for a step says what is wrong with it (validate says so before a run).
 */
export function fallbackChain(boardDir: string, role: string): string[] {
  const chain: string[] = [];
  const visit = (name: string) => {
    if (chain.some((seen) => seen.toLowerCase() === name.toLowerCase())) return;
    chain.push(name);
    for (const next of readRole(boardDir, name).role?.fallback ?? []) visit(next);
  };
  visit(role);
  return chain;
}

/**
 * The circles among the roles' `fallback:` lists (pure), each once, at the entry that closes it:
 * a role whose fallbacks lead back to it. `roles` are the role files read, by lower-case name.
 */
export function fallbackCycles(roles: ReadonlyMap<string, Pick<Role, 'file' | 'fallback' | 'lineOf'>>): Problem[] {
  const problems: Problem[] = [];
  const done = new Set<string>();
  const path: string[] = [];
  const visit = (name: string) => {
    path.push(name);
    const role = roles.get(name);
    for (const [index, next] of (role?.fallback ?? []).entries()) {
      const key = next.toLowerCase();
      const at = path.indexOf(key);
      if (at >= 0 && role) {
        const circle = [...path.slice(at), key].map(roleFilePath).join(' → ');
        problems.push({
          file: role.file,
          line: role.lineOf(`/fallback/${index}`),
          message:
            `fallback: ${circle} is a circle: a role's fallbacks may not lead back to it. ` +
            `Remove ${next} from fallback: here.`,
        });
      } else if (!done.has(key)) visit(key);
    }
    path.pop();
    done.add(name);
  };
  for (const name of roles.keys()) if (!done.has(name)) visit(name);
  return problems;
}
