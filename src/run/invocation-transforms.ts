import type { InvocationTransform } from '../agent/prepare.js';
import { callBudgetOption } from '../budget/call-budget.js';
import { cliSchema } from '../cli-schema/transform.js';
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
