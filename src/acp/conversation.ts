import { realpathSync } from 'node:fs';
import { Writable } from 'node:stream';
import { client, ndJsonStream, RequestError, type SessionNotification } from '@agentclientprotocol/sdk';
import { acpMessages, type AcpSpec } from './messages.js';
import { chooseOption, decide, readAsk, type PermissionDecision } from './policy.js';

// The reply is read from the end of the agent's text, as from the end of a CLI's stdout.
const TEXT_MAX = 4 * 1024 * 1024;
// One JSON-RPC message larger than this ends the conversation (an agent may send anything).
const MESSAGE_MAX = 16 * 1024 * 1024;

/** How one prompt turn of an ACP agent ended. */
export interface AcpOutcome {
  /** The `stopReason` of `session/prompt`, when the turn ended with one. */
  stopReason?: string;
  /** The JSON-RPC error one of the requests got, or why the conversation broke off, in the agent's words. */
  error?: { method: string; code?: number; message: string };
}

/** What an ACP agent reported spending, as far as it did. */
export interface AcpUsage {
  costUsd?: number;
  inputTokens?: number;
  outputTokens?: number;
  cachedInputTokens?: number;
}

/** What the attempt hears of a conversation while it runs. */
export interface AcpHooks {
  /** What the agent is doing, one line: its latest text or tool call (the live status line). */
  activity?: (line: string) => void;
}

/** One ACP conversation with a running agent: the client side of its stdin and stdout. */
export interface AcpConversation {
  /** A chunk of the agent's stdout. */
  feed(chunk: Buffer): void;
  /** The agent's stdout closed. */
  end(): void;
  /** Resolves when the prompt turn ends, a request fails, or the agent's stdout ends. */
  done: Promise<AcpOutcome>;
  /**
   * Ask the agent to stop its turn (`session/cancel`), when a session is open; resolves once the
   * notification is written, or at once (the group's kill follows).
   */
  cancel(): Promise<void>;
  /** The agent's message text so far (`agent_message_chunk`), its end kept when long. */
  text(): string;
  /** How many bytes of message text the agent sent in all. */
  textBytes(): number;
  /**
   * What the turn spent: the cost in US dollars of its last `usage_update` (if in dollars), the
   * tokens of `session/prompt`'s `usage` (where the agent sends it: opencode, Kilo).
   */
  usage(): AcpUsage;
  /** Every permission request and how the policy answered it. */
  permissions(): PermissionDecision[];
}

/**
 * Speak ACP as the client to an agent whose stdin is `stdin` and whose stdout arrives through
 * `feed` (the attempt keeps reading the pipe itself, for the attempt's log file and the idle
 * timeout): initialize, a new session in the board folder, one prompt (acpMessages). The reply
 * is the agent's message text; permission requests are answered by the role's policy; file-system
 * and terminal requests are refused (not offered).
 */
export function startConversation(spec: AcpSpec, stdin: Writable, hooks: AcpHooks = {}): AcpConversation {
  let text = '';
  let textBytes = 0;
  let usage: AcpUsage = {};
  let sessionId: string | undefined;
  let line = '';
  const decisions: PermissionDecision[] = [];
  let feedController: ReadableStreamDefaultController<Uint8Array> | undefined;
  const input = new ReadableStream<Uint8Array>({ start: (controller) => void (feedController = controller) });
  // A write to an agent that has exited fails (EPIPE): the conversation ends, never the supervisor.
  stdin.on('error', () => {});
  const stream = ndJsonStream(Writable.toWeb(stdin), input, { maxMessageBytes: MESSAGE_MAX });
  const place = { boardDir: spec.cwd, own: spec.own, realpath: (file: string) => realpathSync(file) };
  const app = client({ name: 'kanban-supervisor' })
    .onRequest('session/request_permission', ({ params }) => {
      const decision = decide(readAsk(params.toolCall), spec.permissions, place);
      decisions.push(decision);
      hooks.activity?.(`${decision.allowed ? 'allowed' : 'refused'}: ${decision.tool} (${decision.why})`);
      const optionId = chooseOption(params.options, decision.allowed);
      return { outcome: optionId ? { outcome: 'selected', optionId } : { outcome: 'cancelled' } };
    })
    .onNotification('session/update', ({ params }) => {
      const shown = readUpdate(params);
      if (shown.text !== undefined) {
        text = (text + shown.text).slice(-TEXT_MAX);
        textBytes += Buffer.byteLength(shown.text);
        line = (line + shown.text).split('\n').findLast((l) => l.trim() !== '') ?? line;
        if (line.trim()) hooks.activity?.(line.slice(-300));
      }
      if (shown.costUsd !== undefined) usage = { ...usage, costUsd: shown.costUsd };
      if (shown.tool !== undefined) hooks.activity?.(shown.tool);
    });
  const connection = app.connect(stream);
  const [initialize, newSession, prompt] = acpMessages(spec);
  const ask = async (message: NonNullable<typeof initialize>, params = message.params): Promise<unknown> => {
    try {
      return await connection.agent.request(message.method, params as never);
    } catch (error) {
      throw Object.assign(new Error('acp'), { acp: errorOf(message.method, error) });
    }
  };
  const done = (async (): Promise<AcpOutcome> => {
    try {
      await ask(initialize as NonNullable<typeof initialize>);
      const session = (await ask(newSession as NonNullable<typeof newSession>)) as { sessionId?: unknown };
      if (typeof session.sessionId !== 'string')
        return { error: { method: 'session/new', message: 'answered without a sessionId' } };
      sessionId = session.sessionId;
      const turn = prompt as NonNullable<typeof prompt>;
      const response = (await ask(turn, { ...turn.params, sessionId })) as { stopReason?: unknown; usage?: unknown };
      usage = { ...usage, ...tokensOf(response.usage) };
      return { stopReason: String(response.stopReason) };
    } catch (error) {
      const acp = (error as { acp?: AcpOutcome['error'] }).acp;
      return { error: acp ?? { method: 'session', message: String(error) } };
    } finally {
      connection.close();
    }
  })();
  return {
    feed: (chunk) => feedController?.enqueue(new Uint8Array(chunk)),
    end: () => {
      try {
        feedController?.close();
      } catch {
        // already closed
      }
    },
    done,
    cancel: async () => {
      if (sessionId === undefined) return;
      await connection.agent.notify('session/cancel', { sessionId }).catch(() => {});
    },
    text: () => text,
    textBytes: () => textBytes,
    usage: () => usage,
    permissions: () => decisions,
  };
}

// What a session/update shows: message text, a tool call's title, the session's cost.
function readUpdate(params: SessionNotification): { text?: string; tool?: string; costUsd?: number } {
  const update = params.update as Record<string, unknown>;
  if (update.sessionUpdate === 'agent_message_chunk') {
    const content = update.content as { type?: string; text?: unknown } | undefined;
    return content?.type === 'text' && typeof content.text === 'string' ? { text: content.text } : {};
  }
  if (update.sessionUpdate === 'tool_call' && typeof update.title === 'string') return { tool: update.title };
  if (update.sessionUpdate === 'usage_update') {
    const cost = update.cost as { amount?: unknown; currency?: unknown } | null | undefined;
    if (cost && typeof cost.amount === 'number' && cost.currency === 'USD') return { costUsd: cost.amount };
  }
  return {};
}

// The tokens of a prompt turn (ACP's draft `usage` of session/prompt's answer), each a count or left out.
function tokensOf(value: unknown): AcpUsage {
  if (!value || typeof value !== 'object') return {};
  const read = (key: string) => {
    const figure = (value as Record<string, unknown>)[key];
    return typeof figure === 'number' ? figure : undefined;
  };
  const found: AcpUsage = {};
  const input = read('inputTokens');
  const output = read('outputTokens');
  const cached = read('cachedReadTokens');
  if (input !== undefined) found.inputTokens = input + (cached ?? 0);
  // The project counts reasoning as output (reply/usage.ts); ACP counts it apart.
  if (output !== undefined) found.outputTokens = output + (read('thoughtTokens') ?? 0);
  if (cached !== undefined) found.cachedInputTokens = cached;
  return found;
}

// A request's failure in the agent's words: a JSON-RPC error's message and data, or why the connection broke.
function errorOf(method: string, error: unknown): NonNullable<AcpOutcome['error']> {
  if (error instanceof RequestError) {
    // Agents put the model API's own words in `data` (opencode: {message}), or a string.
    const inner = (error.data as { message?: unknown } | null | undefined)?.message;
    const data =
      typeof error.data === 'string'
        ? error.data
        : typeof inner === 'string'
          ? inner
          : error.data === undefined || error.data === null
            ? ''
            : JSON.stringify(error.data);
    const message = data && !error.message.includes(data) ? `${error.message}: ${data}` : error.message;
    return { method, code: error.code, message: message.slice(0, 2000) };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { method, message: message.slice(0, 2000) };
}
