import { spawnSync } from 'node:child_process';
import { findProgram } from '../util/process.js';
import { probeArgs, type HostUser } from './fence.js';
import { seccompFilter } from './seccomp.js';

/**
 * Runs a program to its end, `input` on its stdin, as `user` when given:
 * whether it exited 0, and what it said on stderr.
 */
export type RunProgram = (
  program: string,
  args: string[],
  options: { input?: Uint8Array; user?: HostUser },
) => { ok: boolean; stderr: string };

// Every message is read after the role file's name: it says what to do to it.
const UNFENCED = 'remove `sandbox:` from this role file to run it unfenced';

const runProgram: RunProgram = (program, args, { input, user }) => {
  const result = spawnSync(program, args, {
    stdio: [input ? 'pipe' : 'ignore', 'ignore', 'pipe'],
    ...(input && { input }),
    ...(user && { uid: user.uid, gid: user.gid }),
    timeout: 10_000,
    encoding: 'utf8',
  });
  return { ok: result.status === 0, stderr: (result.stderr ?? result.error?.message ?? '').trim() };
};

/**
 * Where bubblewrap is, or why a fence cannot be built without running anything: not Linux, an
 * architecture the seccomp filter has no table for, or no bwrap on PATH (a message ending with the fix).
 */
export function findBubblewrap(
  env: NodeJS.ProcessEnv,
  cwd: string,
  platform: NodeJS.Platform = process.platform,
  arch: NodeJS.Architecture = process.arch,
): { bwrap: string } | { problem: string } {
  if (platform !== 'linux')
    return {
      problem:
        `sandbox: a fence needs Linux and bubblewrap; this is ${platform} (untested and unsupported here), ` +
        `so the agent is not run, and never unfenced. Run the board on Linux, or ${UNFENCED}.`,
    };
  if (!seccompFilter(arch))
    return {
      problem:
        `sandbox: the fence's seccomp filter knows the system calls of x86_64 and aarch64 only; this is ${arch}, ` +
        `so the agent is not run, and never unfenced. Run the board on x86_64 or aarch64, or ${UNFENCED}.`,
    };
  const found = findProgram('bwrap', env, cwd);
  if ('problem' in found)
    return {
      problem:
        `sandbox: bubblewrap (bwrap) ${found.problem}, ` +
        `so the agent's fence cannot be built and it is not run unfenced. ` +
        `Install it (Debian/Ubuntu: apt install bubblewrap; Fedora: dnf install bubblewrap), or ${UNFENCED}.`,
    };
  return { bwrap: found.file };
}

/**
 * Why no fence can be built here (bubblewrap missing, or it cannot build one),
 * or undefined: see findBubblewrap and probeFence.
 */
export function fenceProblem(
  network: boolean,
  env: NodeJS.ProcessEnv,
  cwd: string,
  user?: HostUser,
  run: RunProgram = runProgram,
): string | undefined {
  const found = findBubblewrap(env, cwd);
  return 'problem' in found ? found.problem : probeFence(found.bwrap, network, user, run);
}

/**
 * Whether the bubblewrap at `bwrap`, run as `user` (the fenced agent's host user) when given, can
 * build a fence on this machine that holds, found by running `bwrap … sh`; a message with the fix
 * when it cannot (user namespaces are off, most often).
 */
export function probeFence(
  bwrap: string,
  network: boolean,
  user?: HostUser,
  run: RunProgram = runProgram,
): string | undefined {
  const filter = seccompFilter();
  const probe = run(bwrap, probeArgs(network), { ...(filter && { input: filter }), ...(user && { user }) });
  if (probe.ok) return undefined;
  const said = probe.stderr.split('\n')[0]?.replace(/^bwrap: /, '') || 'nothing';
  return (
    `sandbox: bubblewrap cannot build a fence on this ` +
    `machine${user ? ` as uid ${user.uid}, the board folder's owner` : ''} ` +
    `(${bwrap} said: ${said}), ` +
    `so the agent is not run, and never unfenced. Allow unprivileged user namespaces ` +
    `(sysctl kernel.unprivileged_userns_clone=1; ` +
    `on Ubuntu 24.04 also kernel.apparmor_restrict_unprivileged_userns=0; ` +
    `in a container, a seccomp profile that allows them), or ${UNFENCED}.`
  );
}
