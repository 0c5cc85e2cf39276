import { chmodSync, lchownSync, lstatSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { IJobSpec } from 'kubernetes-models/batch/v1/JobSpec';
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IPodSpec } from 'kubernetes-models/v1/PodSpec';

// What Kubernetes does with a pod of the recipes, as far as the tests need it: the `docker run`
// a kubelet's container runtime amounts to, the volume ownership it sets for fsGroup, and what
// the Job controller does with a failed pod under podFailurePolicy. Each follows the Kubernetes
// source it names, so the recipes are judged by Kubernetes' rules, not by ours.

/** Where the pod's volumes are on this machine: a claim's folder, or a Secret's files. */
export type HostVolumes = Record<string, string>;

/**
 * The file the kubelet mounts at the container's terminationMessagePath (/dev/termination-log
 * unless set), made as it makes it (pkg/kubelet/kuberuntime/kuberuntime_container.go): empty and
 * writable by any user, so a container that is not root can leave its message there.
 */
export function terminationLog(dir: string, container: IContainer): { file: string; flag: string[] } {
  const file = path.join(dir, `${container.name}.termination-log`);
  writeFileSync(file, '');
  chmodSync(file, 0o666);
  const target = container.terminationMessagePath ?? '/dev/termination-log';
  return { file, flag: ['--mount', `type=bind,source=${file},target=${target}`] };
}

/**
 * The message the kubelet reports for an ended container (state.terminated.message): what it
 * left in the termination log, else with FallbackToLogsOnError and a failure, its log's last
 * 80 lines (at most 2048 bytes of them).
 */
export function terminationMessage(container: IContainer, logged: string, exitCode: number, output: string): string {
  if (logged !== '') return logged;
  if (container.terminationMessagePolicy !== 'FallbackToLogsOnError' || exitCode === 0) return '';
  return output.split('\n').slice(-80).join('\n').slice(-2048);
}

/**
 * `$(NAME)` in command and args is the container's variable NAME, `$$` is `$`, anything else
 * stays as written (third_party/forked/golang/expansion in Kubernetes).
 */
export function expand(input: string, env: Record<string, string>): string {
  return input.replace(/\$(\$|\(([^)]*)\))?/g, (whole, what: string | undefined, name: string | undefined) => {
    if (what === '$') return '$';
    if (name !== undefined) return Object.hasOwn(env, name) ? (env[name] ?? '') : whole;
    return whole;
  });
}

/** The container's environment as the kubelet gives it: plain values, and Secret keys from `secrets`. */
export function containerEnv(container: IContainer, secrets: Record<string, Record<string, string>>) {
  const env: Record<string, string> = {};
  for (const variable of container.env ?? []) {
    const ref = variable.valueFrom?.secretKeyRef;
    const value = ref ? secrets[ref.name ?? '']?.[ref.key] : variable.value;
    if (value === undefined && !ref?.optional) throw new Error(`${container.name}: ${variable.name} has no value`);
    if (value !== undefined) env[variable.name] = expand(value, env);
  }
  return env;
}

/**
 * The `docker run` arguments (before the image: `image` is put in its place) that run
 * `container` of `pod` as a kubelet would: its user and groups, no capabilities, no privilege
 * escalation, docker's default seccomp profile (RuntimeDefault), its environment, working folder,
 * volumes, and its command and args over the image's entry point and CMD.
 */
export function dockerRun(
  pod: IPodSpec,
  container: IContainer,
  volumes: HostVolumes,
  image: string,
  secrets: Record<string, Record<string, string>> = {},
): string[] {
  const security = { ...pod.securityContext, ...container.securityContext };
  const user = security.runAsUser;
  if (security.runAsNonRoot && !user) throw new Error(`${container.name}: runAsNonRoot without a runAsUser`);
  const flags = user === undefined ? [] : ['--user', `${user}:${security.runAsGroup ?? 0}`];
  if (pod.securityContext?.fsGroup !== undefined) flags.push('--group-add', String(pod.securityContext.fsGroup));
  if (container.securityContext?.allowPrivilegeEscalation === false) flags.push('--security-opt', 'no-new-privileges');
  for (const cap of container.securityContext?.capabilities?.drop ?? []) flags.push('--cap-drop', cap);
  // A kubelet without --seccomp-default runs a container with no profile unconfined.
  if (security.seccompProfile?.type !== 'RuntimeDefault') flags.push('--security-opt', 'seccomp=unconfined');
  const env = containerEnv(container, secrets);
  for (const [name, value] of Object.entries(env)) flags.push('-e', `${name}=${value}`);
  if (container.workingDir) flags.push('-w', container.workingDir);
  for (const mount of container.volumeMounts ?? []) {
    const host = volumes[mount.name];
    if (host === undefined) throw new Error(`${container.name}: no volume ${mount.name} on this machine`);
    const source = path.join(host, mount.subPath ?? '');
    flags.push('--mount', `type=bind,source=${source},target=${mount.mountPath}${mount.readOnly ? ',readonly' : ''}`);
  }
  const words = (list: string[] | undefined) => (list ?? []).map((word) => expand(word, env));
  if (container.command) flags.push('--entrypoint', container.command[0] ?? '');
  return [...flags, image, ...words(container.command?.slice(1)), ...words(container.args)];
}

/**
 * What the kubelet does to a volume for the pod's fsGroup before the containers start
 * (pkg/volume/volume_linux.go): every file's group becomes fsGroup, readable and writable by it,
 * folders also searchable and setgid; with fsGroupChangePolicy OnRootMismatch, nothing when the
 * volume's top folder already has all that.
 */
export function applyFsGroup(dir: string, pod: IPodSpec, readOnly = false): void {
  const gid = pod.securityContext?.fsGroup;
  if (gid === undefined) return;
  const want = readOnly ? 0o440 : 0o660;
  const top = statSync(dir);
  const settled = top.gid === gid && (top.mode & (want | 0o110)) === (want | 0o110) && (top.mode & 0o2000) !== 0;
  if (pod.securityContext?.fsGroupChangePolicy === 'OnRootMismatch' && settled) return;
  const walk = (file: string) => {
    const info = lstatSync(file);
    lchownSync(file, info.uid, gid);
    if (info.isSymbolicLink()) return;
    chmodSync(file, (info.mode & 0o7777) | want | (info.isDirectory() ? 0o2110 : 0));
    if (info.isDirectory()) for (const name of readdirSync(file)) walk(path.join(file, name));
  };
  walk(dir);
}

/** `dir` made a fresh ext4 volume's top folder: root's, holding root's lost+found. */
export function freshVolume(dir: string): string {
  chmodSync(dir, 0o755);
  mkdirSync(path.join(dir, 'lost+found'), { mode: 0o700 });
  return dir;
}

/** `dir` made the pod's Secret volume as the kubelet writes it: a file per key, defaultMode, fsGroup's. */
export function secretVolume(dir: string, pod: IPodSpec, data: Record<string, string>): string {
  const source = pod.volumes?.find((v) => v.secret)?.secret;
  for (const [key, value] of Object.entries(data)) {
    writeFileSync(path.join(dir, key), value);
    chmodSync(path.join(dir, key), source?.defaultMode ?? 0o644);
  }
  applyFsGroup(dir, pod, true);
  return dir;
}

/** A finished pod: each container's exit code (init containers too), and its conditions. */
export interface PodEnd {
  exitCodes: Record<string, number>;
  conditions?: string[];
}

/**
 * What the Job does after a pod ends (pkg/controller/job/pod_failure_policy.go): a pod whose
 * containers all exited 0 completes the Job; a failed one is matched against the rules in order
 * (exit codes other than 0, or a condition), the first match decides, and no match counts it.
 */
export function jobAfter(job: IJobSpec, pod: PodEnd): 'complete' | 'failed' | 'retried' | 'retried, not counted' {
  const failed = Object.entries(pod.exitCodes).filter(([, code]) => code !== 0);
  if (failed.length === 0) return 'complete';
  const count = (job.backoffLimit ?? 6) > 0 ? 'retried' : 'failed';
  for (const rule of job.podFailurePolicy?.rules ?? []) {
    const codes = rule.onExitCodes;
    const matches = codes
      ? failed.some(
          ([name, code]) =>
            (codes.containerName === undefined || codes.containerName === name) &&
            (codes.operator === 'In') === codes.values.includes(code),
        )
      : (rule.onPodConditions ?? []).some((pattern) => pod.conditions?.includes(pattern.type));
    if (!matches) continue;
    if (rule.action === 'FailJob') return 'failed';
    if (rule.action === 'Ignore') return 'retried, not counted';
    return count;
  }
  return count;
}
