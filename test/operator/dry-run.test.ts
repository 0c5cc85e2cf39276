import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AGENTS, boardWithTasks, role, runCli } from '../helpers.js';
import { jsonLines, snapshot } from './snapshot.js';

const kanbanEnv = (env: Record<string, string>) => Object.fromEntries(Object.entries(env).filter(([key]) => key.startsWith('KANBAN_') && key !== 'KANBAN_SUPERVISOR_TAG'));

/** A board whose worker is the recording agent, reading `stdin` (json or a prompt with placeholders). */
function recordingBoard(stdin: 'json' | 'prompt'): { dir: string; record: string } {
  const dir = boardWithTasks(2, {});
  const record = path.join(dir, 'record.jsonl');
  const body = 'Work on {{task_file}} of {{kanban_file}} as {{role}}.\nNo final newline here';
  writeFileSync(path.join(dir, 'roles/implementor.md'), role(['node', path.join(AGENTS, 'scripted.mjs'), record, 'valid'], `stdin: ${stdin}\ntimeout: 7m\nenv: { ROLE_SETTING: on }\n`, body));
  return { dir, record };
}

describe('--dry-run', () => {
  it.each(['json', 'prompt'] as const)('prints (as JSON) the exact argv, stdin, KANBAN_* env and cwd that a real run then gives the agent (stdin: %s)', async (stdin) => {
    const { dir, record } = recordingBoard(stdin);
    const before = snapshot(dir);
    const dry = await runCli([path.join(dir, 'kanban.yaml'), '--dry-run', '--json']);
    expect(dry.stderr).toBe('');
    expect(dry.exitCode).toBe(0);
    expect(snapshot(dir)).toEqual(before); // nothing written: no lock, no events, no state folder

    const plan = JSON.parse(dry.stdout) as { next: { argv: string[]; stdin: string; env: Record<string, string>; cwd: string; timeoutMs: number; role: string; roleFile: string } };
    expect(plan.next).toMatchObject({ role: 'Implementor', roleFile: 'roles/implementor.md', timeoutMs: 7 * 60_000, cwd: dir });
    expect(plan.next.env.ROLE_SETTING).toBe('on');

    const run = await runCli([path.join(dir, 'kanban.yaml'), '--once']);
    expect(run.exitCode).toBe(0);
    const [got] = jsonLines(readFileSync(record, 'utf8')) as Array<{ argv: string[]; stdin: string; env: Record<string, string>; cwd: string }>;
    // Node reports argv[0] as its resolved executable; the rest is exactly what was passed.
    expect(plan.next.argv[0]).toBe('node');
    expect(got?.argv.slice(1)).toEqual(plan.next.argv.slice(1));
    expect(got?.stdin).toBe(plan.next.stdin);
    expect(kanbanEnv(got?.env ?? {})).toEqual(kanbanEnv(plan.next.env));
    expect(got?.env.ROLE_SETTING).toBe('on');
    expect(got?.cwd).toBe(plan.next.cwd);
    if (stdin === 'prompt') expect(plan.next.stdin).toBe('Work on tasks/001.md of kanban.yaml as Implementor.\nNo final newline here');
  });

  it('prints a person-readable plan whose argv line and stdin block are exactly what the agent then receives', async () => {
    const { dir, record } = recordingBoard('prompt');
    const before = snapshot(dir);
    const dry = await runCli([path.join(dir, 'kanban.yaml'), '--dry-run']);
    expect(dry.exitCode).toBe(0);
    expect(snapshot(dir)).toEqual(before);
    const out = dry.stdout;
    expect(out).toMatch(/^Dry run: nothing was run, locked or written\.\nNext: Implementor on tasks\/001\.md\n/);
    expect(out).toMatch(/^ {2}role file {2}roles\/implementor\.md$/m);
    expect(out).toMatch(/^ {2}timeout {4}7m00s, no idle timeout; up to 3 retries with these exact inputs$/m);
    expect(out).toMatch(/^ {2}env {8}KANBAN_ROLE=Implementor$/m);
    expect(out).toMatch(/^ {13}KANBAN_TASK_FILE=tasks\/001\.md$/m);
    expect(out).toMatch(/^ {13}ROLE_SETTING=on$/m);
    expect(out).toMatch(/Then: the Manager \(roles\/manager\.md: node .*sequential-manager\.js\)/);
    const argv = JSON.parse(/^ {2}argv {7}(.*)$/m.exec(out)?.[1] ?? 'null') as string[];
    const stdinBlock = /\n----- stdin -----\n([\s\S]*)\n----- end of stdin( \(no final newline\))? -----\n/.exec(out);
    expect(stdinBlock).not.toBeNull();
    const printedStdin = `${stdinBlock?.[1]}${stdinBlock?.[2] ? '' : '\n'}`;

    await runCli([path.join(dir, 'kanban.yaml'), '--once']);
    const [got] = jsonLines(readFileSync(record, 'utf8')) as Array<{ argv: string[]; stdin: string }>;
    expect(argv.slice(1)).toEqual(got?.argv.slice(1));
    expect(printedStdin).toBe(got?.stdin);
  });

  it('says there is nothing to run on a finished board, and fails like a run would on a missing agent command', async () => {
    const done = boardWithTasks(1, { 'roles/implementor.md': role(['true']) });
    writeFileSync(path.join(done, 'kanban.yaml'), 'current: null\ntasks:\n  - tasks/001.md\n');
    const nothing = await runCli([path.join(done, 'kanban.yaml'), '--dry-run']);
    expect(nothing.exitCode).toBe(0);
    expect(nothing.stdout).toBe('Dry run: nothing was run, locked or written. Nothing to run: the board has no next task (current: null).');

    const broken = boardWithTasks(1, { 'roles/implementor.md': role(['no-such-agent-cli']) });
    const before = snapshot(broken);
    const result = await runCli([path.join(broken, 'kanban.yaml'), '--dry-run']);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toMatch(/^kanban-supervisor: roles\/implementor\.md: the Implementor command "no-such-agent-cli" was not found on PATH/);
    expect(snapshot(broken)).toEqual(before);
  });
});
