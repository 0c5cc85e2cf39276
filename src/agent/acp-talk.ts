import type { Readable, Writable } from 'node:stream';
import type { AcpConversation, AcpOutcome } from '../acp/conversation.js';
import { acpFailureKind, errorLine } from '../acp/failure.js';
import type { PermissionDecision } from '../acp/policy.js';
import type { Failure } from '../agents/adapter.js';
import { agentFor, classifyFailure, programOf } from '../agents/index.js';
import { cleanLine } from '../util/clean-text.js';
import type { Usage } from '../reply/usage.js';
import type { Invocation } from './invocation.js';

// An ACP agent ends when its stdin closes after its turn; one still running this long after is stopped.
const AFTER_TURN_MS = 1_000;
// How long the conversation's outcome is awaited once the agent has exited (its last message read).
const SETTLE_MS = 500;
// How long an agent told `session/cancel` has to read it before its group is stopped.
const CANCEL_MS = 300;

/** What an ACP attempt's result holds in place of a CLI's stdout (the agent's message text) and what it adds. */
export interface AcpResultFields {
  stdout: string;
  stdoutTruncated: boolean;
  stdoutBytes: number;
  stderrTail: string;
  failure?: Failure;
  usage?: Usage;
  acp: { stopReason?: string; error?: string; permissions: PermissionDecision[] };
}

/** The ACP side of one attempt: the attempt keeps the process (group, timeouts, sweep); this speaks to it. */
export interface AcpTalk {
  /** Start the conversation on the spawned agent's pipes; `endGroup` stops its group once its turn is over. */
  start(
    agent: { stdin: Writable | null; stdout: Readable | null },
    onLine: ((line: string) => void) | undefined,
    endGroup: () => void,
  ): void;
  /** `session/cancel`, when a session is open, then `endGroup` a moment later (the attempt is being stopped). */
  stop(endGroup: () => void): void;
  /** The agent has exited. */
  exited(): void;
  /** The conversation's outcome read, for a moment at most once the agent is gone. */
  settled(): Promise<void>;
  /** The result's fields: the reply text, the failed request as the last stderr line, its failure kind, spend. */
  result(stderrTail: string, failure: Failure | undefined): AcpResultFields | Record<string, never>;
}

/**
 * The ACP side of an attempt of a `protocol: acp` role. The SDK is loaded here, only for such a
 * role, so a run of CLI agents never loads it.
 */
export async function acpTalk(invocation: Invocation & { acp: NonNullable<Invocation['acp']> }): Promise<AcpTalk> {
  const { startConversation } = await import('../acp/conversation.js');
  let conversation: AcpConversation | undefined;
  let outcome: AcpOutcome | undefined;
  let timer: NodeJS.Timeout | undefined;
  return {
    start(agent, onLine, endGroup) {
      if (!agent.stdin || !agent.stdout) return;
      const stdin = agent.stdin;
      conversation = startConversation(invocation.acp, stdin, {
        ...(onLine && { activity: (line: string) => onLine(cleanLine(line)) }),
      });
      agent.stdout.on('data', (chunk: Buffer) => conversation?.feed(chunk));
      agent.stdout.on('close', () => conversation?.end());
      void conversation.done.then((ended) => {
        outcome = ended;
        stdin.end();
        timer = setTimeout(endGroup, AFTER_TURN_MS);
      });
    },
    stop(endGroup) {
      if (!conversation) return endGroup();
      const written = conversation.cancel();
      void written.then(() => setTimeout(endGroup, CANCEL_MS));
    },
    exited: () => clearTimeout(timer),
    async settled() {
      if (!conversation || outcome) return;
      conversation.end();
      const late: AcpOutcome = {
        error: { method: 'session/prompt', message: 'the agent exited before its turn ended' },
      };
      outcome = await Promise.race([
        conversation.done,
        new Promise<AcpOutcome>((resolve) => setTimeout(() => resolve(late), SETTLE_MS)),
      ]);
    },
    result(stderrTail, failure) {
      if (!conversation) return {};
      const text = conversation.text();
      const error = outcome?.error && errorLine(outcome.error);
      const usage = conversation.usage();
      const read = failure ?? (outcome?.error && failureOf(invocation, outcome.error, error as string));
      return {
        stdout: text,
        stdoutTruncated: conversation.textBytes() > Buffer.byteLength(text),
        stdoutBytes: conversation.textBytes(),
        stderrTail: error
          ? `${stderrTail}${stderrTail === '' || stderrTail.endsWith('\n') ? '' : '\n'}${error}\n`
          : stderrTail,
        ...(read && read.kind !== 'invalid' && { failure: read }),
        ...(Object.keys(usage).length > 0 && { usage }),
        acp: {
          ...(outcome?.stopReason !== undefined && { stopReason: outcome.stopReason }),
          ...(error && { error }),
          permissions: conversation.permissions(),
        },
      };
    },
  };
}

// A failed request read as any failure is (SPEC §4b): the role's `failures:` patterns, then its CLI's
// adapter, reading the error as the agent's last stderr line; else what ACP's own words say.
function failureOf(invocation: Invocation, error: NonNullable<AcpOutcome['error']>, line: string): Failure | undefined {
  const command = [invocation.file, ...invocation.args];
  const read = classifyFailure(
    { stdout: '', stderr: line, exitCode: null },
    {
      command,
      patterns: invocation.failures,
      now: new Date(),
      timeZone: invocation.env.TZ || Intl.DateTimeFormat().resolvedOptions().timeZone,
    },
  );
  if (read.kind !== 'invalid') return read;
  const kind = acpFailureKind(error);
  if (!kind) return undefined;
  const agent = agentFor(command);
  const cli = agent.name === 'generic' ? programOf(command) : agent.name;
  const detail = error.message;
  if (kind === 'usage_limit') return { kind, cli, detail, resetAt: null };
  if (kind === 'transient') return { kind, cli, detail };
  return { kind, cli, detail, hint: invocation.failures?.login_hint ?? agent.loginHint ?? `Log in to ${cli}.` };
}
