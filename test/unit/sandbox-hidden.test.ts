import { describe, expect, it } from 'vitest';
import { buildFence, probeArgs, type FencePlace } from '../../src/sandbox/fence.js';
import { credentialStores } from '../../src/sandbox/stores.js';
import { tablePlace } from './fence-place.js';

// A machine with a home folder (/home/ann), described by a table (fence-place.ts).
const place = (
  files: Record<string, 'dir' | 'file'>,
  more: Partial<FencePlace> = {},
  links: Record<string, string> = {},
) => tablePlace(files, links, { homes: ['/home/ann'], ...more });

const spec = { write: [], read: [], hide: [], network: true };
const HOME = { '/home/ann': 'dir', '/run': 'dir' } as const;

// Where in the argv a mount is: its option and operands joined.
function at(args: string[], mount: string): number {
  return args
    .join(' ')
    .split(/ (?=--)/)
    .indexOf(mount);
}

describe('the home folder and /run hidden by rule', () => {
  it('hides the home folder and /run under read-only tmpfs, and a secret inside the home is not mounted again', () => {
    const fence = buildFence(spec, place({ ...HOME, '/home/ann/.ssh': 'dir', '/home/ann/.some-secret': 'file' }));
    expect(fence.hidden).toEqual(['/run', '/home/ann']);
    expect(at(fence.args, '--tmpfs /home/ann')).toBeGreaterThan(-1);
    expect(at(fence.args, '--remount-ro /home/ann')).toBeGreaterThan(-1);
    expect(fence.args.join(' ')).not.toContain('.ssh');
  });

  it(
    'shows what the role declares inside it (read-only or writable), binds them before the home is made ' +
      'read-only, and keeps the secrets inside them hidden',
    () => {
      const fence = buildFence(
        { ...spec, write: ['~/.claude'], read: ['~/.gitconfig', '~/.config'] },
        place({
          ...HOME,
          '/home/ann/.claude': 'dir',
          '/home/ann/.gitconfig': 'file',
          '/home/ann/.config': 'dir',
          '/home/ann/.config/gh': 'dir',
        }),
      );
      expect(fence.writable).toEqual(['/work/board', '/home/ann/.claude']);
      expect(fence.readable).toEqual(['/home/ann/.gitconfig', '/home/ann/.config']);
      expect(fence.hidden).toEqual(['/run', '/home/ann', '/home/ann/.config/gh']);
      const remount = at(fence.args, '--remount-ro /home/ann');
      expect(at(fence.args, '--bind /home/ann/.claude /home/ann/.claude')).toBeLessThan(remount);
      expect(at(fence.args, '--ro-bind /home/ann/.gitconfig /home/ann/.gitconfig')).toBeLessThan(remount);
      expect(at(fence.args, '--tmpfs /home/ann/.config/gh')).toBeGreaterThan(
        at(fence.args, '--ro-bind /home/ann/.config /home/ann/.config'),
      );
    },
  );

  it('shows a declared path that is a symlink both where it is written and where it leads', () => {
    const fence = buildFence(
      { ...spec, read: ['~/.claude.json'] },
      place(
        { ...HOME, '/home/ann/dotfiles/claude.json': 'file' },
        {},
        { '/home/ann/.claude.json': '/home/ann/dotfiles/claude.json' },
      ),
    );
    expect(fence.readable).toEqual(['/home/ann/.claude.json', '/home/ann/dotfiles/claude.json']);
    expect(at(fence.args, '--ro-bind /home/ann/dotfiles/claude.json /home/ann/.claude.json')).toBeGreaterThan(-1);
  });

  it(
    "shows read-only what the agent's program needs inside a hidden folder, never the whole home, " +
      'a secret or what is visible anyway',
    () => {
      const fence = buildFence(
        spec,
        place(
          {
            ...HOME,
            '/home/ann/.nvm/versions/node/v22/bin': 'dir',
            '/home/ann/.nvm/versions/node/v22/lib/node_modules/claude': 'dir',
            '/home/ann/.ssh': 'dir',
            '/usr/bin': 'dir',
            '/run/current-system/sw/bin': 'dir',
          },
          {
            needed: [
              '/home/ann/.nvm/versions/node/v22/bin',
              '/home/ann/.nvm/versions/node/v22/lib/node_modules/claude',
              '/home/ann',
              '/home/ann/.ssh',
              '/usr/bin',
              '/run/current-system/sw/bin',
              '/home/ann/gone',
            ],
          },
        ),
      );
      expect(fence.readable).toEqual([
        '/run/current-system/sw/bin',
        '/home/ann/.nvm/versions/node/v22/bin',
        '/home/ann/.nvm/versions/node/v22/lib/node_modules/claude',
      ]);
      expect(fence.hidden).toEqual(['/run', '/home/ann']);
    },
  );

  it(
    'hides the credential stores the environment names and the unreadable system files, wherever they are, ' +
      'unless declared',
    () => {
      const files = { ...HOME, '/etc/kube/config': 'file', '/srv/gnupg': 'dir', '/etc/shadow': 'file' } as const;
      const more = { stores: ['/etc/kube/config', '/srv/gnupg', '/nowhere'], unreadable: ['/etc/shadow'] };
      expect(buildFence(spec, place(files, more)).hidden).toEqual([
        '/run',
        '/home/ann',
        '/srv/gnupg',
        '/etc/shadow',
        '/etc/kube/config',
      ]);
      expect(buildFence({ ...spec, read: ['/etc/kube/config'] }, place(files, more)).hidden).not.toContain(
        '/etc/kube/config',
      );
    },
  );

  it('hides nothing of a home folder that is the board folder itself', () => {
    const fence = buildFence(spec, place({ '/work/board': 'dir' }, { homes: ['/work/board'] }));
    expect(fence.hidden).toEqual([]);
  });
});

describe('the credential stores environment variables name', () => {
  it(
    'are the paths they name, every one of a list, a relative one from the working folder, ' +
      'in the files of a home that holds programs too',
    () => {
      expect(
        credentialStores(
          {
            KUBECONFIG: '/etc/kube/a:/etc/kube/b',
            npm_config_userconfig: 'npmrc',
            CARGO_HOME: '/opt/cargo',
            SSH_AUTH_SOCK: '/var/agent.sock',
            PATH: '/usr/bin',
            DOCKER_CONFIG: '',
          },
          '/work/board',
        ),
      ).toEqual([
        '/etc/kube/a',
        '/etc/kube/b',
        '/work/board/npmrc',
        '/opt/cargo/credentials.toml',
        '/opt/cargo/credentials',
        '/var/agent.sock',
      ]);
    },
  );
});

describe('the probe', () => {
  it('builds the same isolation as a fence and fails when the fenced process keeps a capability', () => {
    const args = probeArgs(false);
    expect(args).toEqual(expect.arrayContaining(['--unshare-user', '--cap-drop', 'ALL', '--unshare-net']));
    expect(args.slice(-3, -1)).toEqual(['sh', '-c']);
    expect(args.at(-1)).toContain('CapEff');
  });
});
