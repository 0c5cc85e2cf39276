import { InputError } from '../errors.js';
import type { Capability, OpenCapability } from '../loop/context.js';
import { fsDirWatcher, type DirWatcher } from './watcher.js';

/**
 * `--watch` (SPEC §5b): where a run would end — done, halted for a person, retries exhausted, a
 * guard or budget stop, a login missing, a usage limit past max_limit_wait — hold the lock, say
 * what it waits for, and run the loop again from the board as it is once a person's edit of
 * kanban.yaml, a task or a role file validates. Ends only with the stop's reason (130 / 143 / 75)
 * or an error no edit can help. See README.md here.
 */
export const watch: OpenCapability = (kind, options): Capability | undefined => {
  if (kind !== 'run' || options.flags?.watch !== true) return undefined;
  if (options.flags.once)
    throw new InputError(
      '--watch and --once cannot be used together: --watch keeps running after the board is done, ' +
        '--once stops after one step. Pass one of them.',
    );
  const seam = options.seams?.watcher;
  // How long the files must be quiet before a change is acted on: an editor's several writes are one change.
  const deps = { watcher: typeof seam === 'function' ? (seam as DirWatcher) : fsDirWatcher, debounceMs: 500 };
  return {
    // What waits is loaded only then: a run that ends starts without it.
    loopEnded: async (end) => (await import('./resident.js')).waitForPerson(end, deps),
  };
};
