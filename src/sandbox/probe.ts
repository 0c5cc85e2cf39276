import { spawnSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { findProgram } from '../util/process.js';
import { probeArgs } from './fence.js';

/** Runs a program to its end: whether it exited 0, and what it said on stderr. */
export type RunProgram = (program: string, args: string[]) => { ok: boolean; stderr: string };

// Every message is read after the role file's name: it says what to do to it.
const UNFENCED = 'remove `sandbox:` from this role file to run it unfenced';

const runProgram: RunProgram = (program, args) => {
  const result = spawnSync(program, args, { stdio: ['ignore', 'ignore', 'pipe'], timeout: 10_000, encoding: 'utf8' });
  return { ok: result.status === 0, stderr: (result.stderr ?? result.error?.message ?? '').trim() };
};

/**
 * Where bubblewrap is, or why a fence cannot be built without running anything:
 * not Linux, or no bwrap on PATH (a message ending with the fix).
 */
export function findBubblewrap(
  env: NodeJS.ProcessEnv,
  cwd: string,
  platform: NodeJS.Platform = process.platform,
): { bwrap: string } | { problem: string } {
  if (platform !== 'linux')
    return {
      problem:
        `sandbox: a fence needs Linux and bubblewrap; this is ${platform} (untested and unsupported here), ` +
        `so the agent is not run, and never unfenced. Run the board on Linux, or ${UNFENCED}.`,
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
  run: RunProgram = runProgram,
): string | undefined {
  const found = findBubblewrap(env, cwd);
  return 'problem' in found ? found.problem : probeFence(found.bwrap, network, run);
}

/**
 * Whether the bubblewrap at `bwrap` can build a fence on this machine, found by running
 * `bwrap … true`; a message with the fix when it cannot (user namespaces are off, most often).
 */
export function probeFence(bwrap: string, network: boolean, run: RunProgram = runProgram): string | undefined {
  const probe = run(bwrap, probeArgs(network));
  if (probe.ok) return undefined;
  const said = probe.stderr.split('\n')[0]?.replace(/^bwrap: /, '') || 'nothing';
  return (
    `sandbox: bubblewrap cannot build a fence on this machine (${bwrap} said: ${said}), ` +
    `so the agent is not run, and never unfenced. Allow unprivileged user namespaces ` +
    `(sysctl kernel.unprivileged_userns_clone=1; ` +
    `on Ubuntu 24.04 also kernel.apparmor_restrict_unprivileged_userns=0; ` +
    `in a container, a seccomp profile that allows them), or ${UNFENCED}.`
  );
}

/**
 * Why a fenced agent could not write the board folder, or undefined: run by root, it keeps root's
 * user id but no capability, so a folder root neither owns nor may write as its group or as
 * anyone (a checkout a CI job's container mounts, say) is closed to it. A warning with the fix.
 */
export function ownerWarning(boardDir: string, uid = process.getuid?.()): string | undefined {
  if (uid !== 0) return undefined;
  const { uid: owner, gid, mode } = statSync(boardDir);
  if (owner === 0 || mode & 0o002 || (gid === 0 && mode & 0o020)) return undefined;
  return (
    `sandbox: the board folder belongs to uid ${owner}; an agent fenced by a supervisor run as root keeps no ` +
    `capability, so it cannot write there. Run the supervisor as that user (e.g. setpriv --reuid ${owner} ` +
    `--regid ${gid} --init-groups …), or give the folder to root (chown -R root).`
  );
}
