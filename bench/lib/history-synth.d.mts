// Types of history-synth.mjs, for the tests that use its synthesized history.

/** Write a board of `tasks` tasks with a synthesized history of about `events` events. */
export function synthesize(dir: string, options: { tasks: number; events: number; seed?: number }): { file: string; events: number; runs: number; bytes: number };
