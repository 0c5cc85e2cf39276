// What a fence hides by default, as written in a role's `sandbox:` (`~/` is the home folder).

/**
 * Hidden whole, but for what is declared or needed inside: the home folder comes from the
 * place; /run holds the sockets of daemons that start processes for whoever connects (docker,
 * containerd, systemd, D-Bus) or hold keys (ssh and gpg agents), and Kubernetes' token.
 */
export const COVERS = ['/run', '/var/run'];

/** Hidden even inside a declared folder (`write: [~]`), unless declared themselves (then the declaration wins). */
export const DEFAULT_HIDDEN = [
  '~/.ssh',
  '~/.aws',
  '~/.gnupg',
  '~/.config/gh',
  '~/.config/hub',
  '~/.config/git/credentials',
  '~/.netrc',
  '~/.authinfo',
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
];
