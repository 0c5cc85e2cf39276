import path from 'node:path';
import type { Capability, OpenCapability } from '../loop/context.js';
import { writeIfOpen } from '../util/write-if-open.js';
import type { Hook, HookContext } from './hook.js';

/**
 * `--on-complete CMD` / `--on-halt CMD`: a command run when the run ends (exit 0, or any other),
 * with KANBAN_* variables saying how. Checked before the board is read, so a typo fails at once,
 * not hours later; a hook that fails or is stopped is a warning, never a change of exit code.
 */
export const hooks: OpenCapability = async (kind, options): Promise<Capability | undefined> => {
  const commands = { '--on-complete': options.flags?.['on-complete'], '--on-halt': options.flags?.['on-halt'] };
  if (kind !== 'run' || Object.values(commands).every((command) => command === undefined)) return undefined;
  const dir = path.dirname(path.resolve(options.file));
  // Loaded only when a hook is given: checking one reads the role files (which are fenced).
  const [{ parseHook }, { outsideWritesEnv }] = await Promise.all([
    import('./hook.js'),
    import('../board/outside-writes.js'),
  ]);
  // Found and run with PATH as agents get it: without what a fenced agent could write.
  const { env, removed } = outsideWritesEnv(dir, options.io?.env ?? process.env);
  const hook = (flag: Hook['flag']) => {
    const command = commands[flag];
    return typeof command === 'string' ? parseHook(flag, command, dir, env, removed) : undefined;
  };
  const complete = hook('--on-complete');
  const halt = hook('--on-halt');
  // Where the run stood: its id, the last step started and its task.
  const at: Omit<HookContext, 'file'> = { run: '', steps: 0, task: '' };
  return {
    event(event) {
      if (event.type === 'run_started') at.run = event.run;
      if (event.type === 'step_started') Object.assign(at, { steps: event.step, task: event.task });
    },
    async runEnded({ outcome, file }) {
      const chosen = outcome.exitCode === 0 ? complete : halt;
      if (!chosen) return;
      const { runHook } = await import('./run-hook.js');
      const warning = await runHook(chosen, outcome, { file, ...at }, env);
      if (warning) writeIfOpen(options.io?.stderr ?? process.stderr, `kanban-supervisor: warning: ${warning}\n`);
    },
  };
};
