import { expandPath, type SandboxSpec } from './spec.js';

/** What the fence sees of the machine: gathered at the edge (place.ts), so building the fence stays pure. */
export interface FencePlace {
  /** The board folder, its real path. */
  boardDir: string;
  /** The agent's working directory. */
  cwd: string;
  home: string | undefined;
  /** The bubblewrap program as found on PATH. */
  bwrap: string;
  /** What is at a path, symlinks followed: its real path and kind; undefined when nothing is there. */
  look: (file: string) => { real: string; kind: 'dir' | 'file' } | undefined;
  /** The board's repository's git folders (its .git, and what a worktree's .git file points to), real paths. */
  gitDirs: string[];
  /** The board's own files and folders that exist (the board file, roles/, the Supervisor Log), real paths. */
  own: string[];
  /** Sockets that hand out the user's credentials or more (an ssh agent's, docker's), if any. */
  sockets: string[];
}

/** A built fence: the bwrap argv that goes before the agent's own, and what it allows, for --dry-run. */
export interface Fence {
  program: string;
  /** bwrap's options, ending with `--`: the agent's argv follows. */
  args: string[];
  writable: string[];
  /** Inside writable folders, yet read-only: the supervisor's state, the board's own files and the repository's git folder. */
  readOnly: string[];
  hidden: string[];
  /** Declared writable paths that do not exist, so are not bound (the agent cannot create them). */
  missing: string[];
  network: boolean;
}

/** Secrets the agent cannot read unless a role declares one of them writable (then the declaration wins). */
export const DEFAULT_HIDDEN = [
  '~/.ssh',
  '~/.aws',
  '~/.gnupg',
  '~/.config/gh',
  '~/.config/hub',
  '~/.netrc',
  '~/.docker',
  '~/.kube',
  '~/.git-credentials',
  '~/.config/gcloud',
  '~/.azure',
  '~/.npmrc',
  '~/.yarnrc.yml',
  '~/.pypirc',
  '~/.cargo/credentials.toml',
  '~/.password-store',
  '~/.vault-token',
  '~/.terraform.d',
  '~/.pgpass',
  '~/.local/share/keyrings',
  '~/.config/op',
  '~/.config/rclone',
  '~/.s3cfg',
  // Shell histories hold pasted tokens often enough.
  '~/.bash_history',
  '~/.zsh_history',
  // Sockets stay usable on a read-only mount: one to a daemon that starts processes for the user
  // (docker, podman, systemd --user over D-Bus) or holds their keys (gpg-agent, keyrings) is a way out.
  '/run/user',
  '/run/docker.sock',
  '/run/podman/podman.sock',
  '/run/containerd/containerd.sock',
  '/run/dbus/system_bus_socket',
];

type Mount = { path: string; how: 'write' | 'hide-dir' | 'hide-file' };

/**
 * The bubblewrap argv of a role's fence (pure): the whole file system read-only, a fresh /tmp,
 * the board folder and the declared paths writable, secrets hidden. Read-only even inside a
 * writable folder: the supervisor's state, the board file and the role files (an agent that
 * rewrote a role's command or `sandbox:` would have it run unfenced at the next step) and the
 * repository's .git (a planted git hook runs unfenced in the supervisor's own commit). A deeper
 * path is mounted after the folder holding it, so the more specific declaration wins.
 */
export function buildFence(spec: SandboxSpec, place: FencePlace): Fence {
  const missing: string[] = [];
  const writable = [place.boardDir];
  for (const written of spec.write) {
    const found = at(written, place);
    if (found) writable.push(found.real);
    else missing.push(written);
  }
  const hides: Mount[] = [];
  for (const written of [...DEFAULT_HIDDEN, ...place.sockets, ...spec.hide]) {
    const found = at(written, place);
    if (found && !writable.includes(found.real) && !hides.some((m) => m.path === found.real))
      hides.push({ path: found.real, how: found.kind === 'dir' ? 'hide-dir' : 'hide-file' });
  }
  const mounts = [...unique(writable).map((path): Mount => ({ path, how: 'write' })), ...hides].sort(
    (a, b) => depth(a.path) - depth(b.path),
  );
  const inWritable = (file: string) => writable.some((dir) => file === dir || file.startsWith(`${dir}/`));
  const readOnly = unique([
    `${place.boardDir}/.kanban-supervisor`,
    ...place.own.filter(inWritable),
    ...place.gitDirs.filter(inWritable),
  ]);
  const args = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp'];
  for (const mount of mounts) {
    if (mount.how === 'write') args.push('--bind', mount.path, mount.path);
    else if (mount.how === 'hide-dir') args.push('--tmpfs', mount.path, '--remount-ro', mount.path);
    else args.push('--ro-bind', '/dev/null', mount.path);
  }
  for (const file of readOnly) args.push('--ro-bind', file, file);
  // No --new-session: the agent must stay in the process group the supervisor kills as one. No
  // --die-with-parent: bubblewrap ends on the first SIGTERM, and with it the agent would be killed
  // outright, without its kill_grace; what a killed supervisor leaves is the next run's to stop, as for any agent.
  args.push(
    '--unshare-pid',
    ...(spec.network ? [] : ['--unshare-net']),
    '--setenv',
    'TMPDIR',
    '/tmp',
    '--chdir',
    place.cwd,
    '--',
  );
  return {
    program: place.bwrap,
    args,
    writable: unique(writable),
    readOnly,
    hidden: hides.map((m) => m.path),
    missing,
    network: spec.network,
  };
}

/** The argv that checks once per run that this machine can build a fence at all (user namespaces, /proc). */
export function probeArgs(network: boolean): string[] {
  return [
    '--ro-bind',
    '/',
    '/',
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    '--unshare-pid',
    ...(network ? [] : ['--unshare-net']),
    '--',
    'true',
  ];
}

function at(written: string, place: FencePlace): { real: string; kind: 'dir' | 'file' } | undefined {
  const file = expandPath(written, place.boardDir, place.home);
  return file === undefined ? undefined : place.look(file);
}

function depth(file: string): number {
  return file.split('/').length;
}

function unique(list: string[]): string[] {
  return [...new Set(list)];
}
