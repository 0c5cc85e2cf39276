import type { AgentInputs } from './inputs.js';
import type { BoardCheck, CheckPlace, Need } from './check-seam.js';
import type { Found } from './check-tasks.js';
import { fallbackCycles } from './fallback-chain.js';
import { checkRole } from './role-check.js';
import { missingRoleHint, sameRole } from './role-names.js';
import { roleWarnings } from './role-warnings.js';
import { roleFilePath, type Role } from './role.js';
import { createSchemaCompiler } from '../schemas.js';
import { parseDuration } from '../util/duration.js';
import { runnable } from '../util/self-command.js';

/**
 * Every role the board needs, checked: its file, command and schemas, each capability's check of it,
 * its warnings; a missing one said in the words of why it is needed. A role's `fallback:` roles are
 * needed too (checked after it), and a circle among them is a problem. Returns the roles read.
 */
export function checkRoles(
  needs: Map<string, Need>,
  place: CheckPlace,
  checks: readonly BoardCheck[],
  { problems, warnings }: Found,
): Array<{ role: Role; inputs: AgentInputs }> {
  const { dir, env, state } = place;
  const compiler = createSchemaCompiler();
  const boardTimeout = parseDuration(state.settings.timeout) ?? undefined;
  const checked: Array<{ role: Role; inputs: AgentInputs }> = [];
  const read = new Map<string, Role>();
  // A Map visits what is added while it is walked: each role's fallbacks are checked after it.
  for (const [role, need] of needs) {
    const check = checkRole(dir, role, need.inputs, env, compiler);
    const known = check.role ?? check.draft;
    if (known) read.set(role.toLowerCase(), known);
    for (const [index, fallback] of (known?.fallback ?? []).entries())
      if (![...needs.keys()].some((name) => sameRole(name, fallback)))
        needs.set(fallback, {
          // A fallback takes the role's steps, so its command is filled with the role's inputs.
          inputs: need.inputs,
          file: known?.file ?? roleFilePath(role),
          ...(known && { line: known.lineOf(`/fallback/${index}`) }),
          why: `${known?.file ?? roleFilePath(role)} names it in fallback:`,
        });
    if (check.role) {
      checked.push({ role: check.role, inputs: need.inputs });
      for (const found of checks.map((c) => c.role?.(check.role as Role, need, place))) {
        problems.push(...(found?.problems ?? []));
        warnings.push(...(found?.warnings ?? []));
      }
    }
    const hint = check.missing ? missingRoleHint(dir, role) : '';
    const readable = check.role ?? check.draft;
    if (readable) warnings.push(...roleWarnings(readable, boardTimeout));
    if (!check.missing) problems.push(...check.problems);
    else if (need.file === roleFilePath(role))
      problems.push({
        file: need.file,
        message: `no such role file, but ${need.why}.${hint} Create it (see \`${runnable('init --help')}\`).`,
      });
    else
      problems.push({
        file: need.file,
        ...(need.line !== undefined && { line: need.line }),
        message:
          `${roleFilePath(role)} does not exist, but ${need.why}.${hint} Create it ` +
          `(see \`${runnable('init --help')}\`) or change the role.`,
      });
  }
  problems.push(...fallbackCycles(read));
  return checked;
}
