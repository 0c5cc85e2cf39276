import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IPodSpec } from 'kubernetes-models/v1/PodSpec';

/**
 * Why a pod breaks the "restricted" Pod Security Standard (kubernetes.io/docs/concepts/security/
 * pod-security-standards), the rules a pod of the recipes could break: none means it passes.
 */
export function restrictedProblems(pod: IPodSpec): string[] {
  const problems: string[] = [];
  const all: IContainer[] = [...(pod.initContainers ?? []), ...pod.containers];
  const context = pod.securityContext ?? {};
  if (pod.hostNetwork || pod.hostPID || pod.hostIPC) problems.push('host namespaces');
  for (const volume of pod.volumes ?? []) {
    const kinds = Object.keys(volume).filter((key) => key !== 'name');
    const allowed = [
      'configMap',
      'csi',
      'downwardAPI',
      'emptyDir',
      'ephemeral',
      'persistentVolumeClaim',
      'projected',
      'secret',
    ];
    if (!kinds.every((kind) => allowed.includes(kind))) problems.push(`volume ${volume.name}: ${kinds.join(', ')}`);
  }
  for (const c of all) {
    const own = c.securityContext ?? {};
    if (own.privileged) problems.push(`${c.name}: privileged`);
    if (own.allowPrivilegeEscalation !== false) problems.push(`${c.name}: allowPrivilegeEscalation is not false`);
    if (!(own.runAsNonRoot ?? context.runAsNonRoot)) problems.push(`${c.name}: runAsNonRoot is not true`);
    if ((own.runAsUser ?? context.runAsUser) === 0) problems.push(`${c.name}: runAsUser 0`);
    const seccomp = (own.seccompProfile ?? context.seccompProfile)?.type;
    if (seccomp !== 'RuntimeDefault' && seccomp !== 'Localhost') problems.push(`${c.name}: seccompProfile ${seccomp}`);
    if (!own.capabilities?.drop?.includes('ALL')) problems.push(`${c.name}: capabilities do not drop ALL`);
    if ((own.capabilities?.add ?? []).some((cap) => cap !== 'NET_BIND_SERVICE'))
      problems.push(`${c.name}: adds capabilities`);
    for (const port of c.ports ?? []) if (port.hostPort) problems.push(`${c.name}: hostPort`);
  }
  return problems;
}
