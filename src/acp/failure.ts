import type { AcpOutcome } from './conversation.js';

/** ACP's "authentication required" error code: the agent wants a login the supervisor cannot give. */
export const AUTH_REQUIRED = -32000;

const LOGIN = new RegExp(
  [
    String.raw`\b401\b|\b403\b|unauthori[sz]ed|authenticat(?:e|ion) (?:failed|required)`,
    String.raw`invalid (?:x-)?api[ -_]?key|api key not valid|not logged in|log ?in required|credentials`,
  ].join('|'),
  'i',
);
const LIMIT = /\b429\b|rate.?limit|usage limit|quota|too many requests/i;
const TRANSIENT = new RegExp(
  [
    String.raw`\b5\d\d\b|overloaded|service unavailable|bad gateway`,
    String.raw`econnreset|econnrefused|etimedout|socket hang up|network error|fetch failed`,
  ].join('|'),
  'i',
);

/**
 * What a JSON-RPC error of an ACP agent says, when no role pattern and no adapter recognised it
 * (pure): ACP's auth-required code or login words → a login; limit words → a usage limit (no
 * reset time known: the wait's floor applies); a service's failing words → transient. The error
 * is the agent's own report (its protocol's error channel), not its transcript.
 */
export function acpFailureKind(
  error: NonNullable<AcpOutcome['error']>,
): 'login' | 'usage_limit' | 'transient' | undefined {
  if (error.code === AUTH_REQUIRED || LOGIN.test(error.message)) return 'login';
  if (LIMIT.test(error.message)) return 'usage_limit';
  if (TRANSIENT.test(error.message)) return 'transient';
  return undefined;
}

/** The failed request as one line of the agent's error output: what judging and the failure patterns read. */
export function errorLine(error: NonNullable<AcpOutcome['error']>): string {
  const code = error.code === undefined ? '' : ` (JSON-RPC ${error.code})`;
  return `ACP ${error.method} failed${code}: ${error.message.replace(/\s+/g, ' ').trim()}`;
}
