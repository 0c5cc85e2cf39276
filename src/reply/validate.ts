import type { ValidateFunction } from 'ajv';
import { normalPath, resolveAllInBoard } from '../board/paths.js';
import { notATaskFile } from '../board/read.js';
import { describeErrors, validator } from '../schemas.js';

/** The checks a reply must pass: the shipped schema, an optional role schema, and for the Manager the board paths. */
export interface ReplyRules {
  manager: boolean;
  boardDir: string;
  /** kanban.yaml's name, which the Manager may not name as a task. */
  boardName: string;
  extra?: ValidateFunction;
}

/** A reply that passed, or the first reasons it failed (one line each). */
export type Verdict = { valid: true } | { valid: false; issues: string[] };

// Replies are passed on to the Manager and written to logs; refuse absurd nesting
// before anything recursive (JSON.stringify, ajv) walks it.
const MAX_DEPTH = 64;

/** Check a reply's format, never its content (SPEC §3). */
export function checkReply(reply: Record<string, unknown>, rules: ReplyRules): Verdict {
  if (depthExceeds(reply, MAX_DEPTH)) return { valid: false, issues: [`the reply nests deeper than ${MAX_DEPTH} levels`] };
  const schema = validator(rules.manager ? 'manager-reply' : 'reply');
  if (!schema(reply)) return { valid: false, issues: describeErrors(schema.errors, reply) };
  if (rules.extra && !rules.extra(reply)) return { valid: false, issues: describeErrors(rules.extra.errors, reply).map((i) => `${i} (role schema)`) };
  if (rules.manager) {
    const issues = managerPathIssues(reply as { next_task: string | null; tasks: string[] }, rules);
    if (issues.length) return { valid: false, issues };
  }
  return { valid: true };
}

// Paths are compared in their normal form (`tasks/./a.md` is `tasks/a.md`), the form written to the board.
function managerPathIssues(reply: { next_task: string | null; tasks: string[] }, rules: ReplyRules): string[] {
  const issues: string[] = [];
  const listed = new Map<string, number>();
  resolveAllInBoard(rules.boardDir, reply.tasks).forEach((where, i) => {
    const task = reply.tasks[i] as string;
    const normal = normalPath(task);
    const first = listed.get(normal);
    const notTask = notATaskFile(normal, rules.boardName);
    if (!where.ok) issues.push(`/tasks/${i} "${task}" ${where.reason}`);
    else if (notTask) issues.push(`/tasks/${i} "${task}" is ${notTask}, not a task file`);
    else if (!where.file) issues.push(`/tasks/${i} "${task}" is not an existing file in the board folder`);
    else if (first !== undefined) issues.push(`/tasks/${i} "${task}" is already listed as /tasks/${first}`);
    listed.set(normal, first ?? i);
  });
  if (reply.next_task !== null && !listed.has(normalPath(reply.next_task))) issues.push(`/next_task "${reply.next_task}" is not in /tasks`);
  return issues;
}

function depthExceeds(value: unknown, limit: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length) {
    const [node, depth] = stack.pop() as [unknown, number];
    if (node === null || typeof node !== 'object') continue;
    if (depth >= limit) return true;
    for (const child of Object.values(node)) stack.push([child, depth + 1]);
  }
  return false;
}
