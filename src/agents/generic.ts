import type { AgentCli } from './adapter.js';

/**
 * Any command no adapter recognises: another agent CLI, or a wrapper script around a known one.
 * Its failures are only what the role's `failures:` patterns say (src/reply/failure-patterns.ts),
 * never guessed from its output: a transcript must not look like a limit. What is read by format
 * alone — the envelope `output: auto` unwraps, the live line's activity and the reported spend —
 * is read in every known CLI's format in turn, so a wrapper around Claude Code still shows what
 * it does and its cost still counts towards max_cost_usd.
 */
export function genericAgent(known: readonly AgentCli[]): AgentCli {
  const first = <T>(read: (agent: AgentCli) => T | null | undefined): T | null | undefined => {
    for (const agent of known) {
      const found = read(agent);
      if (found !== null && found !== undefined) return found;
    }
    return undefined;
  };
  return {
    name: 'generic',
    recognise: () => true,
    silent: known.flatMap((agent) => agent.silent),
    unwrap: (out) => first((agent) => agent.unwrap(out)) ?? null,
    // null: not this CLI's event, so the next one reads it; undefined: its event, showing nothing.
    activity: (event, cwd) => known.reduce<string | undefined | null>((shown, agent) => (shown === null ? agent.activity(event, cwd) : shown), null),
    usage: (events) => first((agent) => agent.usage(events)) ?? undefined,
    failure: () => ({ kind: 'invalid' }),
  };
}
