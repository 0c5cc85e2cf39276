import type { ValidateFunction } from 'ajv';
import { describeErrors, validator } from '../schemas.js';
import { withoutStrictNulls } from './reply-schema.js';

/** A Manager's reply, once its schema has passed. */
export interface ManagerAnswer {
  next_task: string | null;
  tasks: string[];
}

/** The checks a reply must pass: the shipped schema, an optional role schema, and for the Manager the board's paths. */
export interface ReplyRules {
  manager: boolean;
  extra?: ValidateFunction;
  /** The problems of a Manager's paths in the board (board/reply-rules.ts): the board's to judge, not the reply's. */
  paths?: (answer: ManagerAnswer) => string[];
  /** The plain schema a CLI got in OpenAI's strict form: a null it forced for an optional key is that key left out. */
  strictFrom?: object;
}

/** A reply that passed, or the first reasons it failed (one line each). */
export type Verdict = { valid: true } | { valid: false; issues: string[] };

// Replies are passed on to the Manager and written to logs; refuse absurd nesting
// before anything recursive (JSON.stringify, ajv) walks it.
const MAX_DEPTH = 64;

/** Check a reply's format, never its content (SPEC §3). */
export function checkReply(given: Record<string, unknown>, rules: ReplyRules): Verdict {
  if (depthExceeds(given, MAX_DEPTH))
    return { valid: false, issues: [`the reply nests deeper than ${MAX_DEPTH} levels`] };
  // The reply itself goes on untouched; only its check reads the strict form's nulls as left out.
  const reply = rules.strictFrom ? (withoutStrictNulls(given, rules.strictFrom) as Record<string, unknown>) : given;
  const schema = validator(rules.manager ? 'manager-reply' : 'reply');
  if (!schema(reply)) return { valid: false, issues: describeErrors(schema.errors, reply) };
  if (rules.extra && !rules.extra(reply))
    return { valid: false, issues: describeErrors(rules.extra.errors, reply).map((i) => `${i} (role schema)`) };
  const issues = rules.manager ? (rules.paths?.(reply as unknown as ManagerAnswer) ?? []) : [];
  if (issues.length) return { valid: false, issues };
  return { valid: true };
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
