import type { InvocationTransform } from '../agent/prepare.js';
import type { BoardCheck } from '../board/check.js';
import { callBudgetOption } from '../budget/call-budget.js';
import { cliSchema } from '../cli-schema/transform.js';
import { sandboxChecks } from '../sandbox/board-checks.js';
import { sandboxFence } from '../sandbox/transform.js';

/**
 * What changes an agent run's plain invocation (agent/prepare.ts), in this order: the reply schema
 * handed to the CLI, then the call's budget (its option after the schema's: the argv of a CLI that
 * takes both is `--json-schema … --max-budget-usd …`), then the fence last, because it wraps the whole
 * argv in bubblewrap and binds the files the others name. `beforeFence` runs before a fence is built.
 */
export function invocationTransforms(beforeFence?: (boardDir: string) => void): InvocationTransform[] {
  return [cliSchema, callBudgetOption, sandboxFence(beforeFence)];
}

/**
 * What capabilities add to the board's pre-flight check (board/check.ts: validate, a run's start,
 * --dry-run, the watch), new for each check: the sandbox's (each fenced role's fence, what would run
 * unfenced where a fenced agent writes, each role's access). The order is that of their findings.
 */
export function boardChecks(): BoardCheck[] {
  return [sandboxChecks()];
}
