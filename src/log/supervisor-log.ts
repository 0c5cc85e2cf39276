import { closeSync, fstatSync } from 'node:fs';
import { openAppend } from '../fs/safe-open.js';
import { writeWhole } from '../fs/replace.js';
import path from 'node:path';
import { maskText } from '../util/secrets.js';
import { cleanBlock, cleanLine } from '../util/clean-text.js';

/** `supervisor.log.md` beside kanban.yaml. */
export function supervisorLogFile(boardDir: string): string {
  return path.join(boardDir, 'supervisor.log.md');
}

/** One entry of the Supervisor Log (SPEC §4, the seed's format). */
export interface LogEntry {
  time: Date;
  kind: 'Retry Event' | 'Halt' | 'Warning' | 'Retries Exhausted' | 'Fallback';
  agent: string;
  task: string;
  /**
   * SPEC §4's `retry number/max_retries`, with the attempt it stands for
   * (`1/3 (attempt 1/4 failed; retry 1 of 3 follows as attempt 2/4)`), for retries and halts.
   */
  attempt?: string;
  issue: string;
  expected?: object;
  received?: string;
  action: string;
}

/**
 * Render an entry as Markdown (pure); a secret in its Issue or Received (a command's key, an
 * agent printing a token, one of `secrets`) is masked, and every text cleaned as for a terminal
 * (the Log is read in one: an OSC 52 clipboard write in an agent's text must not reach it).
 */
export function formatEntry(entry: LogEntry, secrets: readonly string[] = []): string {
  const lines = [
    `### ${entry.time.toISOString()} ${entry.kind}`,
    '',
    `**Agent:** ${cleanLine(entry.agent)}  `,
    `**Task:** ${cleanLine(entry.task)}  `,
  ];
  if (entry.attempt) lines.push(`**Attempt:** ${entry.attempt}  `);
  lines.push(`**Issue:** ${cleanLine(maskText(entry.issue, secrets))}`, '');
  if (entry.expected) lines.push('**Expected:**', fence(JSON.stringify(entry.expected, null, 2), 'json'), '');
  if (entry.received !== undefined)
    lines.push('**Received:**', fence(cleanBlock(maskText(entry.received, secrets)), ''), '');
  lines.push(`**Action:** ${cleanLine(maskText(entry.action, secrets))}`, '', '');
  return lines.join('\n');
}

/**
 * Append an entry, starting the file with its heading if it is new; never through a planted symlink.
 * `secrets`: the run's secret values (util/secrets.ts), masked wherever they appear.
 */
export function appendEntry(boardDir: string, entry: LogEntry, secrets: readonly string[] = []): void {
  writeLog(boardDir, formatEntry(entry, secrets));
}

/**
 * Create the Log (its heading) if it is not there yet: done before a fenced agent runs, so its
 * fence binds the Log read-only and the agent cannot create or forge one.
 */
export function startLog(boardDir: string): void {
  writeLog(boardDir, '');
}

function writeLog(boardDir: string, text: string): void {
  const fd = openAppend(boardDir, 'supervisor.log.md');
  try {
    const heading = fstatSync(fd).size === 0 ? '## Supervisor Log\n\n' : '';
    if (heading || text) writeWhole(fd, Buffer.from(heading + text), supervisorLogFile(boardDir));
  } finally {
    closeSync(fd);
  }
}

// Agent output may itself contain ``` fences: use a longer fence than any inside.
function fence(text: string, language: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const marks = '`'.repeat(longest + 1);
  return `${marks}${language}\n${text}${text.endsWith('\n') ? '' : '\n'}${marks}`;
}
