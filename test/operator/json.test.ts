import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { boardWithTasks, fixtureRole, read, runCli } from '../helpers.js';
import { jsonLines } from './snapshot.js';

describe('--json', () => {
  it('prints every event as one JSON line on stdout, identical to events.jsonl, and nothing else', async () => {
    const dir = boardWithTasks(2, {});
    writeFileSync(
      path.join(dir, 'roles/implementor.md'),
      fixtureRole('scripted.mjs', [path.join(dir, 'record.jsonl'), 'garbage', 'valid']),
    );
    const result = await runCli([path.join(dir, 'kanban.yaml'), '--json']);
    expect(result.exitCode).toBe(0);
    const printed = result.stdout.split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    const logged = jsonLines(read(dir, '.kanban-supervisor/events.jsonl'));
    expect(printed).toEqual(logged);
    const types = printed.map((e) => e.type);
    expect(types[0]).toBe('run_started');
    expect(types.at(-1)).toBe('done');
    expect(types).toContain('retry');
    expect(types.filter((t) => t === 'attempt_finished')).toHaveLength(5); // 2 + 1 Manager, then 1 + 1 Manager
    // The outcome is for people: it goes to stderr, so stdout stays machine-readable.
    expect(result.stderr).toMatch(
      /^Done: the board has no next task \(2 step\(s\), [^)]+\)\. See what happened: npx kanban-supervisor report /,
    );
  });

  it('keeps stdout pure JSON when the run fails and a hook prints', async () => {
    const dir = boardWithTasks(1, {});
    writeFileSync(path.join(dir, 'roles/implementor.md'), fixtureRole('scripted.mjs', ['/dev/null', 'garbage']));
    const hook = `node -e "console.log('hook says hi')"`;
    const result = await runCli([path.join(dir, 'kanban.yaml'), '--json', '--max-retries', '0', '--on-halt', hook]);
    expect(result.exitCode).toBe(3);
    for (const line of result.stdout.trim().split('\n')) expect(() => JSON.parse(line)).not.toThrow();
    expect(jsonLines(result.stdout)).toEqual(
      jsonLines(readFileSync(path.join(dir, '.kanban-supervisor/events.jsonl'), 'utf8')),
    );
    expect(result.stderr).toContain('hook says hi');
  });
});
