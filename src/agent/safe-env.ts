/**
 * The environment given to a spawned process (an agent, a hook), made safe to pass: a NUL
 * cannot be in an environment string, and spawn() throws on one — a NUL in a Manager's message
 * would turn a halt into "a bug" and lose the --on-halt notification. NULs are removed from
 * values; a name that holds a NUL or `=`, or is empty, cannot be passed at all and is left out.
 * Undefined values are left out (pure).
 */
export function safeEnv(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const safe: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) {
    if (value === undefined || key === '' || key.includes('\0') || key.includes('=')) continue;
    safe[key] = value.includes('\0') ? value.replaceAll('\0', '') : value;
  }
  return safe;
}
