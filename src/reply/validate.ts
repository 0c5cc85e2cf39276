import type { ValidateFunction } from 'ajv';
import { resolveAllInBoard } from '../board/paths.js';
import { describeErrors, validator } from '../schemas.js';

/** The checks a reply must pass: the shipped schema, an optional role schema, and for the Manager the board paths. */
export interface ReplyRules {
  manager: boolean;
  boardDir: string;
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
    const issues = managerPathIssues(reply as { next_task: string | null; tasks: string[] }, rules.boardDir);
    if (issues.length) return { valid: false, issues };
  }
  return { valid: true };
}

function managerPathIssues(reply: { next_task: string | null; tasks: string[] }, boardDir: string): string[] {
  const issues: string[] = [];
  if (reply.next_task !== null && !reply.tasks.includes(reply.next_task)) issues.push(`/next_task "${reply.next_task}" is not in /tasks`);
  resolveAllInBoard(boardDir, reply.tasks).forEach((where, i) => {
    const task = reply.tasks[i] as string;
    if (!where.ok) issues.push(`/tasks/${i} "${task}" ${where.reason}`);
    else if (!where.file) issues.push(`/tasks/${i} "${task}" is not an existing file in the board folder`);
  });
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
