import { agentFor } from '../agents/index.js';
import { InputError } from '../errors.js';
import type { Capability, OpenCapability } from '../loop/context.js';

/** The words of a login stop, by which status tells it from a file to fix (both exit 2). */
export const LOGIN_STOP = 'cannot work until someone logs in or fixes its account';

/** How status words a run that stopped at a login: `validate` reads files, never a login. */
export const LOGIN_STOP_WORDS =
  "stopped: an agent's login is missing or rejected (`validate` does not check a login). " +
  'Log it in as said below (`try <role>` runs the agent once to check), then run again';

/**
 * A missing or rejected login (SPEC §4b): no retry can help, so the run stops for a person at
 * once (exit 2), one Halt entry in the Supervisor Log saying what to do.
 */
export const login: OpenCapability = (): Capability => ({
  async afterFailure({ ctx, invocation, logTask, ...rest }) {
    if (rest.failure.kind !== 'login') return undefined;
    const image = invocation.env.KANBAN_SUPERVISOR_IMAGE;
    const failure = image ? { ...rest.failure, hint: containerHint(invocation, image) } : rest.failure;
    ctx.world.log({
      kind: 'Halt',
      agent: invocation.role,
      task: logTask,
      issue: `Login missing or rejected (${failure.cli}): ${failure.detail}`,
      action: `Halting for a person: ${failure.hint}`,
    });
    throw new InputError(
      `${invocation.roleFile}: ${invocation.role}'s ${failure.cli} ${LOGIN_STOP}: ${failure.detail}. ` +
        `${failure.hint} Then run again to resume at this task.`,
    );
  },
});

/**
 * In the image nobody can log in interactively (no /login, no `codex login` in a browser): the
 * login comes from the machine that starts the container, as a key or a mounted login folder.
 */
export function containerHint(invocation: { file: string; args: readonly string[] }, image: string): string {
  const agent = agentFor([invocation.file, ...invocation.args]);
  const key = agent.login.keys[0];
  const under = agent.login.folder.find(([variable]) => variable === 'HOME')?.[1];
  const ways = [
    ...(key ? [`pass its key: docker run -e ${key} …`] : []),
    ...(under ? [`mount its login folder: -v ~/${under}:/home/kanban/${under}`] : []),
  ];
  return (
    `In the ${image} container nobody can log in interactively: ` +
    `${ways.length ? ways.join(', or ') : 'give it its login from the machine that starts the container'} ` +
    '(docs/off-the-laptop.md).'
  );
}
