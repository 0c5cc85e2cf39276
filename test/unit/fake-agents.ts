import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { AttemptResult, RunAttempt } from '../../src/agent/attempt.js';
import type { Invocation } from '../../src/agent/invocation.js';

/** What a fake agent prints: a reply object, stdout text, or `stderr:<text>` with exit 1. */
export type Printed = Record<string, unknown> | string;

/** An attempt that exited after printing `stdout` (and `stderr`, then with exit 1). */
export function exited(stdout: string, stderr = ''): AttemptResult {
  return {
    end: 'exited',
    exitCode: stderr ? 1 : 0,
    signal: null,
    killedWith: null,
    stdout,
    stdoutTruncated: false,
    stdoutBytes: stdout.length,
    stderrTail: stderr,
    durationMs: 1,
  };
}

/** The JSON inputs an agent got. */
export function inputOf(invocation: Invocation): Record<string, unknown> {
  return JSON.parse(invocation.env.KANBAN_INPUT ?? '{}') as Record<string, unknown>;
}

/** A Claude-shaped result envelope around `result`, reporting `cost` dollars. */
export function priced(cost: number | string, result = '{"status": "ok", "message": "done"}'): string {
  return (
    `{"type": "result", "subtype": "success", "is_error": false, "result": ${JSON.stringify(result)}, ` +
    `"total_cost_usd": ${cost}, "usage": {"input_tokens": 1000, "output_tokens": 200}}`
  );
}

/**
 * Fake agents: each role prints the next item of its script, or `otherwise` once it is used up
 * (else an ok reply); the Manager, unless scripted, moves to the task after the done one.
 */
export function fakeAgents(scripts: Record<string, Printed[]> = {}, otherwise: Record<string, Printed> = {}) {
  const calls: Invocation[] = [];
  const runAttempt: RunAttempt = async (invocation) => {
    calls.push(invocation);
    const next = scripts[invocation.role]?.shift() ?? otherwise[invocation.role];
    if (next !== undefined)
      return typeof next === 'string' && next.startsWith('stderr:')
        ? exited('', next.slice(7))
        : exited(typeof next === 'string' ? next : JSON.stringify(next));
    if (invocation.role !== 'Manager')
      return exited(JSON.stringify({ status: 'ok', message: `${invocation.role} did it` }));
    const input = inputOf(invocation) as { done_task: string; tasks: string[] };
    const after = input.tasks[input.tasks.indexOf(input.done_task) + 1] ?? null;
    return exited(JSON.stringify({ status: 'ok', message: 'next', next_task: after, tasks: input.tasks }));
  };
  return { calls, runAttempt, of: (name: string) => calls.filter((c) => c.role === name) };
}

/** A board file's text. */
export function boardText(dir: string): string {
  return readFileSync(path.join(dir, 'kanban.yaml'), 'utf8');
}
