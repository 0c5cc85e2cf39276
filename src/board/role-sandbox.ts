/**
 * A role's `sandbox:` as written, normalised: extra writable, read-only and hidden paths (as
 * written: `~/x`, `/x` or board-relative) and the network switch.
 */
export interface SandboxSpec {
  write: string[];
  read: string[];
  /** Shown writable as a copy thrown away when the agent ends: the original is never written (a CLI's own files). */
  copy?: string[];
  hide: string[];
  network: boolean;
}

/**
 * The role's `sandbox:` value (already checked by the role schema) as a spec;
 * undefined when the role is not fenced (pure).
 */
export function sandboxSpec(value: unknown): SandboxSpec | undefined {
  if (value === true) return { write: [], read: [], hide: [], network: true };
  if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const map = value as { write?: unknown; read?: unknown; copy?: unknown; hide?: unknown; network?: unknown };
  const copy = strings(map.copy);
  return {
    write: strings(map.write),
    read: strings(map.read),
    ...(copy.length > 0 && { copy }),
    hide: strings(map.hide),
    network: map.network !== false,
  };
}

/**
 * Where a path of `sandbox:` lies: `~` and `~/…` in the home folder, an absolute path as is,
 * anything else in the board folder (pure). Undefined for `~/…` when there is no home.
 */
export function expandPath(written: string, boardDir: string, home: string | undefined): string | undefined {
  if (written === '~' || written.startsWith('~/'))
    return home === undefined ? undefined : joinClean(home, written.slice(2));
  return written.startsWith('/') ? joinClean('/', written) : joinClean(boardDir, written);
}

function joinClean(base: string, rest: string): string {
  const parts: string[] = [];
  for (const part of `${base}/${rest}`.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') parts.pop();
    else parts.push(part);
  }
  return `/${parts.join('/')}`;
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string' && v !== '') : [];
}
