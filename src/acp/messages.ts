import { DEFAULT_POLICY, type PermissionPolicy } from './policy.js';

/** The ACP protocol version this client speaks (the SDK's stable v1). */
export const ACP_PROTOCOL_VERSION = 1;

/** An MCP server a role hands its ACP agent's session (front-matter `mcp_servers:`; stdio servers only). */
export interface McpServer {
  name: string;
  command: string;
  args: string[];
  env: Array<{ name: string; value: string }>;
}

/**
 * What an ACP agent run is told, built once with its invocation so that every attempt sends the
 * very same messages (SPEC §4): the prompt, the session's folder and MCP servers, and how its
 * permission requests are answered.
 */
export interface AcpSpec {
  /** The rendered role body: the one `session/prompt`'s text. */
  prompt: string;
  /** The session's working directory: the board folder (absolute). */
  cwd: string;
  mcpServers: McpServer[];
  permissions: PermissionPolicy;
  /** The supervisor's own files and folders (board-relative): never the target of an allowed write. */
  own: string[];
}

/** One request the client sends, as --dry-run shows it. */
export interface AcpMessage {
  method: 'initialize' | 'session/new' | 'session/prompt';
  params: Record<string, unknown>;
}

/** Where the session id the agent answers `session/new` with goes in --dry-run's listing. */
export const SESSION_ID_SHOWN = '<the id session/new returns>';

/**
 * The three requests of an ACP agent run, in order (pure): `initialize` offering no file-system
 * or terminal capability (the agent reads, writes and runs with its own tools, under the fence),
 * `session/new` in the board folder, and one `session/prompt` with the role's rendered body.
 */
export function acpMessages(spec: AcpSpec, sessionId = SESSION_ID_SHOWN): AcpMessage[] {
  return [
    {
      method: 'initialize',
      params: {
        protocolVersion: ACP_PROTOCOL_VERSION,
        clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
      },
    },
    { method: 'session/new', params: { cwd: spec.cwd, mcpServers: spec.mcpServers } },
    { method: 'session/prompt', params: { sessionId, prompt: [{ type: 'text', text: spec.prompt }] } },
  ];
}

/** The policy a role's front-matter `permissions:` declares (already checked by the role schema), else the default. */
export function policyOf(permissions: unknown): PermissionPolicy {
  const allow = (permissions as { allow?: unknown } | undefined)?.allow;
  return Array.isArray(allow) ? { allow: allow as PermissionPolicy['allow'] } : DEFAULT_POLICY;
}

/** The stdio MCP servers a role's front-matter `mcp_servers:` declares (checked by the role schema). */
export function mcpServersOf(servers: unknown): McpServer[] {
  if (!Array.isArray(servers)) return [];
  return servers.map((server: { name: string; command: string; args?: string[]; env?: Record<string, unknown> }) => ({
    name: server.name,
    command: server.command,
    args: server.args ?? [],
    env: Object.entries(server.env ?? {}).map(([name, value]) => ({ name, value: String(value) })),
  }));
}
