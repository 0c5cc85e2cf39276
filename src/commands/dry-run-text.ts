import { formatDuration } from '../util/duration.js';
import { shellWord } from '../util/self-command.js';
import type { DryRunPlan, TimeoutChoice } from './dry-run.js';
import { fenceLines } from '../sandbox/describe-fence.js';

// An argv element longer than this, or of several lines, is shown below the argv line.
const INLINE_MAX = 100;

/**
 * The plan as a person reads it (pure): argv as shell words, with the prompt and any long
 * argument set out below it, verbatim between marker lines; stdin the same way; which timeout
 * applies and why; the environment with secrets masked.
 */
export function formatDryRun(plan: DryRunPlan): string {
  const lines = ['Dry run: nothing was run, locked or written.'];
  for (const warning of plan.warnings) lines.push(`Warning: ${warning}`);
  for (const line of plan.access ?? []) lines.push(`Access: ${line}`);
  const theirs = plan.capabilityLines.map((line) => `${line}\n`).join('');
  if (!plan.next) return `${lines[0]} Nothing to run: ${plan.nothing}.\n${theirs}`;
  const n = plan.next;
  const pad = (label: string) => `  ${label.padEnd(11)}`;
  lines.push(`Next: ${n.role} on ${n.task}`);
  lines.push(`${pad('role file')}${n.roleFile}`);
  if (n.fallback)
    lines.push(`${pad('fallback')}${n.fallback.join(', ')} (in turn, while an agent before is usage-limited)`);
  const below: Array<{ label: string; text: string }> = [];
  const words = n.argv.map((arg, i) => {
    if (!arg.includes('\n') && arg.length <= INLINE_MAX) return shellWord(arg);
    const label = n.promptArgs.includes(i) ? 'prompt' : `argument ${i}`;
    below.push({ label, text: arg });
    return `<${label}, ${lineCount(arg)} line${lineCount(arg) === 1 ? '' : 's'}, see below>`;
  });
  lines.push(`${pad('argv')}${words.join(' ')}`);
  lines.push(`${pad('cwd')}${n.cwd}`);
  lines.push(`${pad('timeout')}${formatDuration(n.timeoutMs)} ${timeoutWhy(n.timeout, n.roleFile)}`);
  lines.push(
    `${pad('')}${n.idleTimeoutMs === null ? 'no idle timeout' : `idle timeout ${formatDuration(n.idleTimeoutMs)}`}; ` +
      `up to ${n.maxRetries} retr${n.maxRetries === 1 ? 'y' : 'ies'} with these exact inputs`,
  );
  n.envSources.forEach((v, i) =>
    lines.push(
      `${pad(i === 0 ? 'env' : '')}${v.name}=${v.value}` +
        `${v.from === 'role' ? `   (${n.roleFile} env:)` : v.from === 'inherited' ? '   (inherited)' : ''}`,
    ),
  );
  if (n.fence) lines.push(...fenceLines(n.fence, n.roleFile, pad));
  if (n.acp) lines.push(...acpLines(n.acp, n.roleFile, pad));
  else if (n.stdin === null) lines.push(`${pad('stdin')}none (/dev/null)`);
  else lines.push(`${pad('stdin')}${Buffer.byteLength(n.stdin)} bytes, below`);
  for (const { label, text } of below) lines.push(...block(label, text));
  if (n.stdin !== null) lines.push(...block('stdin', n.stdin));
  lines.push(
    `Then: the Manager (${n.manager.roleFile}: ${n.manager.command}) gets the reply as {{result}} ` +
      `and picks the next task.`,
  );
  lines.push(...plan.capabilityLines);
  return `${lines.join('\n')}\n`;
}

// protocol: acp: the requests on the agent's stdin, one JSON line each, the prompt's text set out below.
function acpLines(
  acp: NonNullable<NonNullable<DryRunPlan['next']>['acp']>,
  roleFile: string,
  pad: (label: string) => string,
): string[] {
  const lines = [`${pad('protocol')}acp: the agent's stdin and stdout carry these requests and its answers`];
  let prompt: string | undefined;
  for (const message of acp.messages) {
    const blocks = message.params.prompt as Array<{ text?: string }> | undefined;
    if (blocks?.[0]?.text !== undefined) prompt = blocks[0].text;
    const shown = prompt === undefined ? message.params : { ...message.params, prompt: '<prompt, see below>' };
    lines.push(`${pad('')}${message.method} ${JSON.stringify(shown)}`);
  }
  lines.push(
    `${pad('asks')}answered by ${roleFile} permissions: (or the default): allowed for ` +
      `${acp.allow.join(', ') || 'no tool'} when every path named is in the board folder and not the ` +
      `supervisor's own; refused otherwise`,
  );
  if (prompt !== undefined) lines.push(...block('prompt', prompt));
  return lines;
}

/** Why this timeout applies: who set it and what it wins over (pure). */
export function timeoutWhy(choice: TimeoutChoice, roleFile: string): string {
  const name = {
    role: `${roleFile} timeout:`,
    flag: '--timeout',
    board: 'supervisor.timeout in kanban.yaml',
    default: 'the default',
  };
  const [winner, ...losers] = choice.asked;
  if (!winner || winner.from === 'default')
    return `(the default: neither ${roleFile} timeout:, --timeout nor supervisor.timeout sets one)`;
  const over = losers.map((l) =>
    l.from === 'default' ? `the ${formatDuration(l.ms)} default` : `${name[l.from]} ${formatDuration(l.ms)}`,
  );
  return `(from ${name[winner.from]}, which wins over ${over.join(', ')})`;
}

// Verbatim between marker lines; the end marker says when there is no final newline.
function block(label: string, text: string): string[] {
  const whole = text.endsWith('\n');
  return [
    `----- ${label} (${Buffer.byteLength(text)} bytes) -----`,
    whole ? text.slice(0, -1) : text,
    `----- end of ${label}${whole ? '' : ' (no final newline)'} -----`,
  ];
}

function lineCount(text: string): number {
  return text.replace(/\n$/, '').split('\n').length;
}
