import path from 'node:path';

/** The kinds of tool call ACP names (ToolKind); a request without a kind counts as `other`. */
export const TOOL_KINDS = [
  'read',
  'edit',
  'delete',
  'move',
  'search',
  'execute',
  'think',
  'fetch',
  'switch_mode',
  'other',
] as const;
export type ToolKind = (typeof TOOL_KINDS)[number];

/**
 * How a role answers an ACP agent's `session/request_permission` (front-matter `permissions:`).
 * A request is allowed when its tool kind is in `allow` and every path it names lies inside the
 * board folder and outside the supervisor's own files; anything else is refused.
 */
export interface PermissionPolicy {
  allow: readonly ToolKind[];
}

/**
 * Without `permissions:`: the file tools inside the board folder. Running commands (`execute`),
 * fetching URLs (`fetch`), switching modes and tools ACP cannot name (`other`) are refused: none
 * names a path the policy could check.
 */
export const DEFAULT_POLICY: PermissionPolicy = { allow: ['read', 'edit', 'delete', 'move', 'search', 'think'] };

/** One permission request as the policy reads it: the tool call's kind, title and the paths it names. */
export interface PermissionAsk {
  kind: string | undefined;
  title: string | undefined;
  paths: string[];
}

/** What the policy answered, and why, for the attempt's event. */
export interface PermissionDecision {
  tool: string;
  kind: string;
  allowed: boolean;
  why: string;
}

/** Where a request is judged: the board folder, its own files (board-relative) and how a path's real place is found. */
export interface PolicyPlace {
  boardDir: string;
  own: readonly string[];
  /** The real path of an existing path (fs.realpathSync); throws for one that does not exist. */
  realpath: (file: string) => string;
}

// rawInput fields in which the CLIs name the file a tool touches.
const PATH_FIELDS = ['path', 'filePath', 'file_path', 'absolute_path', 'notebook_path', 'filename', 'target', 'source'];

/** The kind, title and paths of a `session/request_permission`'s tool call (pure; untrusted input read defensively). */
export function readAsk(toolCall: unknown): PermissionAsk {
  const call = (toolCall ?? {}) as Record<string, unknown>;
  const paths: string[] = [];
  if (Array.isArray(call.locations))
    for (const location of call.locations) {
      const file = (location as { path?: unknown } | null)?.path;
      if (typeof file === 'string') paths.push(file);
    }
  const input = call.rawInput;
  if (input && typeof input === 'object')
    for (const field of PATH_FIELDS) {
      const value = (input as Record<string, unknown>)[field];
      if (typeof value === 'string' && value !== '') paths.push(value);
    }
  return {
    kind: typeof call.kind === 'string' ? call.kind : undefined,
    title: typeof call.title === 'string' ? call.title : undefined,
    paths,
  };
}

/**
 * Whether the policy allows one request, and why (pure but for `realpath`). A path is judged
 * where it really is: a link in the board folder that points out of it is outside.
 */
export function decide(ask: PermissionAsk, policy: PermissionPolicy, place: PolicyPlace): PermissionDecision {
  const kind = ask.kind && (TOOL_KINDS as readonly string[]).includes(ask.kind) ? ask.kind : 'other';
  const tool = ask.title ?? kind;
  if (!(policy.allow as readonly string[]).includes(kind))
    return { tool, kind, allowed: false, why: `kind ${kind} is not in the role's permissions.allow` };
  const board = realOrSelf(place.boardDir, place.realpath);
  for (const file of ask.paths) {
    const real = realPlace(path.resolve(place.boardDir, file), place.realpath);
    const relative = path.relative(board, real);
    if (relative === '' ? false : relative.startsWith('..') || path.isAbsolute(relative))
      return { tool, kind, allowed: false, why: `${file} is outside the board folder` };
    const top = relative.split(path.sep)[0] as string;
    if (kind !== 'read' && kind !== 'search' && place.own.includes(top))
      return { tool, kind, allowed: false, why: `${file} is the supervisor's own (${top})` };
  }
  return { tool, kind, allowed: true, why: ask.paths.length ? 'inside the board folder' : `kind ${kind} is allowed` };
}

/**
 * The option to select for a decision: allow once (else always) when allowed, reject once (else
 * always) when not; none (the request is answered `cancelled`) when the agent offers no fitting option.
 */
export function chooseOption(
  options: ReadonlyArray<{ optionId: string; kind: string }>,
  allowed: boolean,
): string | undefined {
  const order = allowed ? ['allow_once', 'allow_always'] : ['reject_once', 'reject_always'];
  for (const kind of order) {
    const option = options.find((o) => o.kind === kind);
    if (option) return option.optionId;
  }
  return undefined;
}

// A path that does not exist yet (a file about to be written) is judged by its nearest existing folder.
function realPlace(file: string, realpath: PolicyPlace['realpath']): string {
  const rest: string[] = [];
  let at = file;
  for (;;) {
    try {
      return path.join(realpath(at), ...rest.reverse());
    } catch {
      const parent = path.dirname(at);
      if (parent === at) return file;
      rest.push(path.basename(at));
      at = parent;
    }
  }
}

function realOrSelf(file: string, realpath: PolicyPlace['realpath']): string {
  try {
    return realpath(file);
  } catch {
    return file;
  }
}
