import type { FencePlace } from '../../src/sandbox/fence.js';

/**
 * A machine described by a table, for building fences in-process: path → kind (real paths equal
 * the paths, but for the links given).
 */
export function tablePlace(
  files: Record<string, 'dir' | 'file'>,
  links: Record<string, string> = {},
  more: Partial<FencePlace> = {},
): FencePlace {
  return {
    boardDir: '/work/board',
    cwd: '/work/board',
    home: '/home/ann',
    bwrap: '/usr/bin/bwrap',
    look: (file) => {
      const real = links[file] ?? file;
      const kind = files[real];
      return kind ? { real, kind } : undefined;
    },
    homes: [],
    gitDirs: [],
    own: [],
    stores: [],
    unreadable: [],
    needed: [],
    arch: 'x64',
    reaches: () => true,
    ...more,
  };
}
