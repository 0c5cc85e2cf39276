import { readFileSync } from 'node:fs';

/** The inputs a reference agent was given: KANBAN_INPUT, else JSON on stdin. */
export function readInputs(): Record<string, unknown> {
  const text = process.env.KANBAN_INPUT ?? readFileSync(0, 'utf8');
  return JSON.parse(text) as Record<string, unknown>;
}

/** Print the reply as the one JSON object on stdout, as the agent contract asks. */
export function reply(value: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}
