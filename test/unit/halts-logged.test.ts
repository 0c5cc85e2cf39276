import { EventEmitter } from 'node:events';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { supervise } from '../../src/run/supervise.js';
import { boardWithTasks, read, role } from '../helpers.js';
import { fakeAgents } from './fake-agents.js';

function board(tasks: number, settings = '') {
  const dir = boardWithTasks(
    tasks,
    { 'roles/implementor.md': role(['node'], 'stdin: none\n') },
    `phase: execute\nsupervisor:\n  max_retries: 1\n${settings}`,
  );
  return { dir, file: path.join(dir, 'kanban.yaml') };
}

const quiet = { signals: new EventEmitter() };
const halts = (dir: string) =>
  read(dir, 'supervisor.log.md')
    .split(/^(?=### )/m)
    .filter((entry) => / Halt\n/.test(entry));

describe('supervisor.log.md records every halt, one entry each', () => {
  it("the Manager's escalation (exit 4): its status and message, and that its answer is written", async () => {
    const { dir, file } = board(2);
    const fake = fakeAgents({
      Manager: [
        {
          status: 'escalate',
          message: 'the API key is gone',
          next_task: 'tasks/002.md',
          tasks: ['tasks/001.md', 'tasks/002.md'],
        },
      ],
    });
    await expect(supervise({ file, seams: { runAttempt: fake.runAttempt, ...quiet } })).rejects.toMatchObject({
      exitCode: 4,
    });
    expect(halts(dir)).toHaveLength(1);
    expect(halts(dir)[0]).toMatch(
      new RegExp(
        String.raw`^### \S+ Halt\n\n\*\*Agent:\*\* Manager {2}\n\*\*Task:\*\* tasks\/001\.md {2}\n` +
          String.raw`\*\*Issue:\*\* The Manager halted for a person \(status escalate\) after tasks\/001\.md: ` +
          String.raw`the API key is gone\n\n\*\*Action:\*\* Halting for a person \(exit 4\); ` +
          String.raw`the Manager's answer is written to kanban\.yaml\n`,
      ),
    );
  });

  it('a guard stop (exit 5): max_steps, naming the task still current', async () => {
    const { dir, file } = board(3, '  max_steps: 1\n');
    const fake = fakeAgents();
    await expect(supervise({ file, seams: { runAttempt: fake.runAttempt, ...quiet } })).rejects.toMatchObject({
      exitCode: 5,
    });
    expect(halts(dir)).toHaveLength(1);
    expect(halts(dir)[0]).toMatch(
      new RegExp(
        String.raw`\*\*Agent:\*\* kanban-supervisor {2}\n\*\*Task:\*\* tasks\/002\.md {2}\n` +
          String.raw`\*\*Issue:\*\* Stopped after max_steps \(1\) steps with tasks\/002\.md still current\.`,
      ),
    );
    expect(halts(dir)[0]).toContain('**Action:** Stopping (exit 5)');
  });

  it('retries exhausted (exit 3) still logs one Halt, its attempt numbered as the console numbers it', async () => {
    const { dir, file } = board(1);
    const fake = fakeAgents({}, { Implementor: 'prose, no reply' });
    await expect(supervise({ file, seams: { runAttempt: fake.runAttempt, ...quiet } })).rejects.toMatchObject({
      exitCode: 3,
    });
    expect(halts(dir)).toHaveLength(1);
    expect(halts(dir)[0]).toContain('**Attempt:** 1/1 (attempt 2/2 failed; no retry left: it was the last)');
    expect(read(dir, 'supervisor.log.md')).toContain(
      '**Attempt:** 1/1 (attempt 1/2 failed; retry 1 of 1 follows as attempt 2/2)',
    );
  });
});
