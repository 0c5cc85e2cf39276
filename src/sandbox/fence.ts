import { COVERS, DEFAULT_HIDDEN } from './hidden.js';
import { isWithin } from '../util/real-path.js';
import { seccompFilter } from './seccomp.js';
import { expandPath, type SandboxSpec } from '../board/role-sandbox.js';

/** What the fence sees of the machine: gathered at the edge (place.ts), so building the fence stays pure. */
export interface FencePlace {
  /** The board folder, its real path. */
  boardDir: string;
  /** The agent's working directory. */
  cwd: string;
  /** $HOME, where `~/` paths lie. */
  home: string | undefined;
  /** The home folders hidden whole ($HOME and the user's own), real paths. */
  homes: string[];
  /** The bubblewrap program as found on PATH. */
  bwrap: string;
  /** What is at a path, symlinks followed: its real path and kind; undefined when nothing is there. */
  look: (file: string) => { real: string; kind: 'dir' | 'file' } | undefined;
  /** The board's repository's git folders (its .git, and what a worktree's .git file points to), real paths. */
  gitDirs: string[];
  /** The board's own files and folders that exist (the board file, roles/, the Supervisor Log), real paths. */
  own: string[];
  /** Credential stores and sockets environment variables name (KUBECONFIG, SSH_AUTH_SOCK, …), wherever they are. */
  stores: string[];
  /** Files in /etc only their owner or group may read (shadow, host keys), when the supervisor is root. */
  unreadable: string[];
  /** What the agent's program needs: PATH's folders (a bin's lib too), its install folder, /etc's links into /run. */
  needed: string[];
  /** The machine's architecture (process.arch), for the seccomp filter's system call numbers. */
  arch: NodeJS.Architecture;
  /** Who bubblewrap runs as on the host when not the supervisor's own user (owner.ts): the board folder's owner. */
  user?: HostUser;
  /**
   * Whether bubblewrap, as that user, can reach a path to bind it (search permission on every
   * folder above it): a path under /root is out of an ordinary user's reach, so it is not bound.
   */
  reaches: (file: string) => boolean;
  /** The regular files directly in a folder (links followed, small enough to copy): what `copy:` copies of it. */
  filesIn?: (dir: string) => Array<{ name: string; real: string }>;
}

/** A user and group id on the host, outside every namespace. */
export interface HostUser {
  uid: number;
  gid: number;
}

/** A built fence: the bwrap argv that goes before the agent's own, and what it allows, for --dry-run. */
export interface Fence {
  program: string;
  /** bwrap's options, ending with `--`: the agent's argv follows. */
  args: string[];
  writable: string[];
  /** Shown read-only inside hidden folders: `sandbox.read` and what the agent's program needs. */
  readable: string[];
  /**
   * Inside writable folders, yet read-only: the supervisor's state,
   * the board's own files and the repository's git folder.
   */
  readOnly: string[];
  hidden: string[];
  /**
   * `copy:` as shown inside: a fresh copy of each, thrown away when the agent ends (a folder: its
   * files, not its sub-folders), so nothing the agent writes there reaches the original.
   */
  copied: string[];
  /**
   * The files copied, in the order of the file descriptors bubblewrap reads them from (4, 5, …: 3 is the seccomp
   * filter's).
   */
  copies: string[];
  /** Declared paths that do not exist (or the agent's host user cannot reach), so are not bound. */
  missing: string[];
  network: boolean;
  /**
   * The seccomp filter (seccomp.ts), handed to bubblewrap on a file descriptor of its own; undefined: none can be built
   * here.
   */
  seccomp: Uint8Array | undefined;
  /** Who bubblewrap (and so the agent, outside its namespace) runs as when not the supervisor's own user. */
  user?: HostUser;
}

/** The file descriptor the agent's bubblewrap reads its seccomp filter from (attempt.ts hands it the bytes). */
export const SECCOMP_FD = 3;

/** bubblewrap's whole argv for a fence, before the agent's own: its seccomp filter read from `fd`. */
export function bwrapArgs(fence: Pick<Fence, 'args' | 'seccomp'>, fd = SECCOMP_FD): string[] {
  return [...(fence.seccomp ? ['--seccomp', String(fd)] : []), ...fence.args];
}

/**
 * No capability, as root too (bubblewrap started by root keeps them all otherwise, and the agent
 * could undo any mount): a user namespace of its own, in which it is nobody, every capability
 * dropped, so mounts, ptrace of what it cannot see anyway, modules and devices are out of reach;
 * its own processes, IPC, host name and cgroup view. No --new-session: the agent must stay in the
 * process group the supervisor kills as one (it has no terminal: it is spawned in a new session).
 * No --die-with-parent: bubblewrap ends on the first SIGTERM, and with it the agent would be killed
 * outright, without its kill_grace; what a killed supervisor leaves is the next run's to stop.
 */
const ISOLATION = [
  '--unshare-user',
  '--uid',
  '65534',
  '--gid',
  '65534',
  '--cap-drop',
  'ALL',
  '--unshare-pid',
  '--unshare-ipc',
  '--unshare-uts',
  '--unshare-cgroup-try',
];
const BASE = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc'];

type Kind = 'dir' | 'file';
type Mount = { src: string; at: string; how: 'write' | 'read' | 'hide' | 'copy'; kind: Kind };

// The first file descriptor bubblewrap reads a copied file from: after stdin, stdout and stderr.
const FIRST_COPY_FD = SECCOMP_FD + 1;

/**
 * The bubblewrap argv of a role's fence (pure): the whole file system read-only, a fresh /tmp,
 * the home folder and /run hidden, the board folder and the declared paths writable or readable,
 * secrets hidden even inside those. Read-only even inside a writable folder: the supervisor's
 * state, the board file and the role files (an agent that rewrote a role's command or `sandbox:`
 * would have it run unfenced at the next step) and the repository's .git (a planted git hook
 * runs unfenced in the supervisor's own commit). Deeper paths are mounted later, so the more
 * specific one wins; a hidden folder is made read-only once what is shown inside it is bound.
 */
export function buildFence(spec: SandboxSpec, place: FencePlace): Fence {
  const missing: string[] = [];
  const declared: Mount[] = [{ src: place.boardDir, at: place.boardDir, how: 'write', kind: 'dir' }];
  const aliases: Mount[] = []; // a declared path as written, when a symlink: shown there too if hidden
  for (const [how, list] of [
    ['write', spec.write],
    ['read', spec.read],
    ['copy', spec.copy ?? []],
  ] as const)
    for (const written of list) {
      const file = expandPath(written, place.boardDir, place.home);
      const found = file === undefined ? undefined : place.look(file);
      if (file === undefined || !found || !place.reaches(found.real)) missing.push(written);
      else {
        declared.push({ src: found.real, at: found.real, how, kind: found.kind });
        if (file !== found.real) aliases.push({ src: found.real, at: file, how, kind: found.kind });
      }
    }
  const hides = (written: string[]) =>
    written.flatMap((w): Mount[] => {
      const file = expandPath(w, place.boardDir, place.home);
      const found = file === undefined ? undefined : place.look(file);
      // What the agent's host user cannot reach it cannot read either; bubblewrap could not mount over it.
      return found && place.reaches(found.real) && !declared.some((m) => m.at === found.real)
        ? [{ src: found.real, at: found.real, how: 'hide', kind: found.kind }]
        : [];
    });
  const covers = hides([...place.homes, ...COVERS]);
  const secrets = hides([...DEFAULT_HIDDEN, ...place.stores, ...place.unreadable, ...spec.hide]);
  const inAny = (file: string, mounts: Mount[]) => mounts.some((m) => isWithin(file, m.at));
  // What the program needs is shown only where a cover (or the fresh /tmp) hides it, never a secret
  // nor a whole home: an install under /tmp (the supervisor's own, a clone there) runs fenced too.
  const covered = (at: string) =>
    (inAny(at, covers) && !covers.some((c) => c.at === at)) || (at !== '/tmp' && isWithin(at, '/tmp'));
  const needed = place.needed.flatMap((file): Mount[] => {
    const found = place.look(file);
    if (!found || !place.reaches(found.real)) return [];
    return unique([file, found.real])
      .filter(covered)
      .filter((at) => !inAny(at, secrets) && !inAny(at, declared))
      .map((at) => ({ src: found.real, at, how: 'read', kind: found.kind }));
  });
  const hidden = [...covers, ...secrets];
  const shownAliases = aliases.filter((m) => inAny(m.at, hidden));
  const mounts = visible([...hidden, ...declared, ...shownAliases, ...needed]);
  const shown = (how: Mount['how']) => unique(mounts.filter((m) => m.how === how).map((m) => m.at));
  const writable = unique(declared.filter((m) => m.how === 'write').map((m) => m.src));
  const inWritable = (file: string) => writable.some((dir) => isWithin(file, dir));
  const readOnly = unique([
    `${place.boardDir}/.kanban-supervisor`,
    ...place.own.filter(inWritable),
    ...place.gitDirs.filter(inWritable),
  ]);
  const args = [...BASE, '--tmpfs', '/tmp'];
  const copies: string[] = [];
  // A copy is made of data bubblewrap reads from a file descriptor: the original is never mounted.
  const copy = (src: string, at: string, option: '--file' | '--bind-data') => {
    args.push('--perms', '0600', option, String(FIRST_COPY_FD + copies.length), at);
    copies.push(src);
  };
  for (const m of mounts) {
    if (m.how === 'hide') args.push(...(m.kind === 'dir' ? ['--tmpfs', m.at] : ['--ro-bind', '/dev/null', m.at]));
    else if (m.how === 'copy' && m.kind === 'file') copy(m.src, m.at, '--bind-data');
    else if (m.how === 'copy') {
      // A writable folder of its own holding a copy of each file: secrets stay out of it.
      args.push('--tmpfs', m.at);
      for (const { name, real } of place.filesIn?.(m.src) ?? []) {
        const at = `${m.at}/${name}`;
        if (!inAny(at, secrets) && !inAny(real, secrets)) copy(real, at, '--file');
      }
    } else args.push(m.how === 'write' ? '--bind' : '--ro-bind', m.src, m.at);
  }
  for (const m of mounts) if (m.how === 'hide' && m.kind === 'dir') args.push('--remount-ro', m.at);
  for (const file of readOnly) args.push('--ro-bind', file, file);
  args.push(
    ...ISOLATION,
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
    writable,
    readable: shown('read'),
    readOnly,
    hidden: shown('hide'),
    copied: shown('copy'),
    copies,
    missing,
    network: spec.network,
    seccomp: seccompFilter(place.arch),
    ...(place.user && { user: place.user }),
  };
}

/**
 * The mounts in the order they are made, shallow first (a hidden path before what is shown at the
 * same path), each only once, and a hidden path only where it would be seen: not inside another.
 */
function visible(all: Mount[]): Mount[] {
  const rank = (m: Mount) => m.at.split('/').length * 2 + (m.how === 'hide' ? 0 : 1);
  const sorted = all.sort((a, b) => rank(a) - rank(b));
  const kept: Mount[] = [];
  for (const m of sorted) {
    if (kept.some((k) => k.at === m.at)) continue;
    const holder = kept.filter((k) => k.at !== m.at && isWithin(m.at, k.at)).pop();
    if (m.how === 'hide' && holder?.how === 'hide') continue;
    kept.push(m);
  }
  return kept;
}

// A capability left to the fenced process, or a setuid bit it could set, is a way out: the probe checks neither is.
const HOLDS =
  ': > /tmp/probe; if chmod 4755 /tmp/probe 2>/dev/null; then ' +
  'echo "the seccomp filter did not refuse a setuid bit" >&2; exit 1; fi; ' +
  'while read -r key value; do if [ "$key" = CapEff: ]; then case $value in *[!0]*) ' +
  'echo "the fenced process kept capabilities ($value)" >&2; exit 1;; esac; exit 0; fi; ' +
  'done </proc/self/status; exit 1';

/**
 * The argv that checks this machine can build a fence at all (user namespaces, /proc, the seccomp
 * filter, read from stdin), and that it holds.
 */
export function probeArgs(network: boolean): string[] {
  return [
    ...bwrapArgs({ args: [...BASE, '--tmpfs', '/tmp'], seccomp: seccompFilter() }, 0),
    ...ISOLATION,
    ...(network ? [] : ['--unshare-net']),
    '--',
    'sh',
    '-c',
    HOLDS,
  ];
}

function unique(list: string[]): string[] {
  return [...new Set(list)];
}
