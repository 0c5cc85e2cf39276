#!/usr/bin/env node
// The example's Reviewer: for each task done since its last run, checks that its work log
// ends with `exit: 0` and that the files it names under out/ are not empty, appends what it
// found to out/review.md, and replies with the findings. It reads its inputs from stdin.
import { appendFileSync, existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';

const inputs = JSON.parse(readFileSync(0, 'utf8'));
const findings = [];
for (const task of inputs.done_tasks) {
  const text = readFileSync(task, 'utf8');
  const exits = [...text.matchAll(/^exit: (.*)$/gm)].map((m) => m[1]);
  if (exits.at(-1) !== '0') findings.push(`${task}: its last run ended with exit ${exits.at(-1) ?? '(none)'}`);
  for (const file of new Set(text.match(/out\/[\w.-]+/g) ?? [])) {
    if (!existsSync(file) || statSync(file).size === 0) findings.push(`${task}: ${file} is missing or empty`);
  }
}
mkdirSync('out', { recursive: true });
const lines = findings.length ? findings.map((f) => `- ${f}`).join('\n') : '- nothing to fix';
appendFileSync('out/review.md', `## Review of ${inputs.done_tasks.join(', ')}\n\n${lines}\n\n`);
const message = `reviewed ${inputs.done_tasks.length} task(s): ${findings.length ? `${findings.length} finding(s)` : 'nothing to fix'}`;
process.stdout.write(`${JSON.stringify({ status: 'ok', message, findings })}\n`);
