import type { Fence } from './fence.js';

/**
 * The fence as a person reads it in --dry-run (pure): what the agent may write and read, what
 * stays read-only, what it cannot see, the network.
 */
export function fenceLines(fence: Fence, roleFile: string, pad: (label: string) => string): string[] {
  const list = (paths: string[]) => (paths.length ? paths.join(', ') : 'none');
  return [
    `${pad('fence')}bubblewrap (${roleFile} sandbox:): the whole file system read-only, ` +
      `a fresh /tmp (TMPDIR=/tmp), network ${fence.network ? 'on' : 'off'}`,
    `${pad('')}run as nobody with no capabilities and no terminal, even when the supervisor is root` +
      (fence.user ? `; on the host, uid ${fence.user.uid} (the board folder's owner), never root` : ''),
    `${pad('')}seccomp: no setuid or setgid bit, file capability or attribute, keyring or io_uring`,
    `${pad('')}writable: ${list(fence.writable)}`,
    `${pad('')}read-only inside them: ${list(fence.readOnly)}`,
    `${pad('')}readable in hidden folders: ${list(fence.readable)}`,
    ...(fence.copied.length
      ? [
          `${pad('')}a copy of its own, thrown away when it ends (a folder: its files): ${fence.copied.join(', ')} ` +
            `(${fence.copies.length} file(s); the originals are never written)`,
        ]
      : []),
    `${pad('')}hidden: ${list(fence.hidden)}`,
    ...(fence.missing.length
      ? [
          `${pad('')}not bound (they do not exist${fence.user ? ', or are out of its reach' : ''}): ` +
            `${fence.missing.join(', ')}`,
        ]
      : []),
  ];
}
