import type { InvocationTransform } from '../agent/prepare.js';
import type { Invocation, Wrapper } from '../agent/invocation.js';
import { bwrapArgs, buildFence, type Fence } from './fence.js';
import { fencePlace } from './place.js';
import { findBubblewrap, probeFence } from './probe.js';
import { agentUser } from './owner.js';

// The fence each wrapper stands for, for --dry-run to show (fenceOf): the invocation only knows its argv.
const fences = new WeakMap<object, Fence>();

/**
 * The sandbox: a role with `sandbox:` runs inside a bubblewrap fence, built here once per agent run so
 * every retry runs in the very same one; its argv is put before the agent's when it is spawned
 * (agent/invocation.ts: `wrap`). Why bubblewrap cannot build it here is reported (`problem`), and
 * probed before a run's first attempt. `beforeBuild` runs just before a fence is built (the run
 * starts the Supervisor Log there, so the fence binds it read-only: no forged Log).
 */
export function sandboxFence(beforeBuild: (boardDir: string) => void = () => {}): InvocationTransform {
  return {
    plan(planned, { run, board, role, own }) {
      if (!role.sandbox) return planned;
      const { invocation } = planned;
      const found = findBubblewrap(run.env, board.dir);
      const who = agentUser(board.dir);
      beforeBuild(board.dir);
      const fence = buildFence(
        role.sandbox,
        fencePlace(
          board.dir,
          [...own],
          invocation.cwd,
          invocation.env,
          'bwrap' in found ? found.bwrap : 'bwrap',
          invocation.file,
          // Only words the role file gives as they are: a placeholder's value may come from a task an agent wrote.
          role.command.slice(1).filter((word) => !word.includes('{{')),
          who.user,
        ),
      );
      const wrap = fenceWrapper(fence);
      const unfenceable = 'problem' in found ? found.problem : who.problem;
      return { ...planned, invocation: { ...invocation, wrap }, ...(unfenceable && { problem: unfenceable }) };
    },
    problem({ invocation }) {
      const fence = fenceOf(invocation);
      return fence && probeFence(fence.program, fence.network, fence.user);
    },
  };
}

/**
 * What is spawned for a fence: bubblewrap with its seccomp filter on descriptor 3 (fence.ts's
 * SECCOMP_FD) and the files it copies on 4, 5, …, started as the fence's host user.
 */
export function fenceWrapper(fence: Fence): Wrapper {
  const wrap = {
    program: fence.program,
    args: bwrapArgs(fence),
    ...(fence.seccomp && { fd3: fence.seccomp }),
    files: fence.copies,
    ...(fence.user && { user: fence.user }),
  };
  fences.set(wrap, fence);
  return wrap;
}

/** The fence an invocation runs in, when its wrapper is one (--dry-run shows it). */
export function fenceOf(invocation: Pick<Invocation, 'wrap'>): Fence | undefined {
  return invocation.wrap && fences.get(invocation.wrap);
}
