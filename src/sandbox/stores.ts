import path from 'node:path';

/**
 * Environment variables that name where credentials are kept, wherever that is: the file or
 * folder they name ('' below), or the files in the folder they name that hold the keys (the
 * folder also holds what a tool needs to run, as CARGO_HOME does its programs).
 */
const STORES: Record<string, readonly string[]> = {
  KUBECONFIG: [''],
  DOCKER_CONFIG: [''],
  REGISTRY_AUTH_FILE: [''],
  GNUPGHOME: [''],
  PASSWORD_STORE_DIR: [''],
  AWS_SHARED_CREDENTIALS_FILE: [''],
  AWS_CONFIG_FILE: [''],
  GOOGLE_APPLICATION_CREDENTIALS: [''],
  CLOUDSDK_CONFIG: [''],
  AZURE_CONFIG_DIR: [''],
  GH_CONFIG_DIR: [''],
  NPM_CONFIG_USERCONFIG: [''],
  GIT_CONFIG_GLOBAL: [''],
  TF_CLI_CONFIG_FILE: [''],
  PGPASSFILE: [''],
  NETRC: [''],
  VAULT_CONFIG_PATH: [''],
  XDG_CONFIG_HOME: [''],
  // An agent's socket hands out the keys it holds.
  SSH_AUTH_SOCK: [''],
  CARGO_HOME: ['credentials.toml', 'credentials'],
  GRADLE_USER_HOME: ['gradle.properties'],
};

/**
 * The credential stores `env` names (pure): absolute paths, a relative one taken from `cwd`,
 * a list such as KUBECONFIG's split on `:`. Names are matched in any case (npm reads
 * `npm_config_userconfig` too). Whether they exist is for the caller to look.
 */
export function credentialStores(env: Readonly<Record<string, string | undefined>>, cwd: string): string[] {
  return Object.entries(env).flatMap(([name, value]) => {
    const inside = STORES[name.toUpperCase()];
    if (!inside || !value) return [];
    return value
      .split(':')
      .filter(Boolean)
      .flatMap((where) => inside.map((file) => path.resolve(cwd, where, file)));
  });
}
