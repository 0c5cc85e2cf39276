import type { AgentCli } from './adapter.js';

/**
 * Any command no adapter recognises: another agent CLI, or a wrapper script around a known one.
 * Its failures are only what the role's `failures:` patterns say, never guessed from its output.
 * What is read by format alone (envelope, live activity, spend) is read in each known CLI's format
 * in turn, so a wrapper around Claude Code still shows what it does and its cost still counts.
 */
export function genericAgent(known: readonly AgentCli[]): AgentCli {
  // The first known CLI's reading that is there (`??` asks no more CLIs once one has answered).
  const first = <T>(read: (agent: AgentCli) => T | null | undefined) =>
    known.reduce<T | null | undefined>((found, agent) => found ?? read(agent), undefined);
  return {
    name: 'generic',
    recognise: () => true,
    // Its account is the program (see programOf) and the user's HOME: nothing more is known of it.
    login: { folder: [['HOME', '']], keys: [] },
    silent: known.flatMap((agent) => agent.silent),
    unwrap: (out) => first((agent) => agent.unwrap(out)) ?? null,
    // null: not this CLI's event, so the next one reads it; undefined: its event, showing nothing.
    activity: (event, cwd) =>
      known.reduce<string | undefined | null>(
        (shown, agent) => (shown === null ? agent.activity(event, cwd) : shown),
        null,
      ),
    usage: (events) => first((agent) => agent.usage(events)) ?? undefined,
    failure: () => ({ kind: 'invalid' }),
  };
}
