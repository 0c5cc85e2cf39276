import { describe, expect, it } from 'vitest';
import { roleLookalikes, sameRole } from '../../src/board/role-names.js';
import { roleWarnings } from '../../src/board/role-warnings.js';
import { parseRole, type Role } from '../../src/board/role.js';
import { parseYaml } from '../../src/board/yaml.js';
import { crashLine } from '../../src/agent/failure-note.js';

function roleOf(text: string): Role {
  const check = parseRole('roles/x.md', 'X', text);
  const role = check.role ?? check.draft;
  if (!role) throw new Error(JSON.stringify(check.problems));
  return role;
}

describe('keys that look like role', () => {
  it('are the misspellings and other cases of role, never role itself nor other keys', () => {
    expect(roleLookalikes({ rol: 1, Role: 1, ROLE: 1, roles: 1, rloe: 1, role_: 1, role: 'X' })).toEqual([
      'rol',
      'Role',
      'ROLE',
      'roles',
      'rloe',
      'role_',
    ]);
    expect(roleLookalikes({ title: 1, note: 1, notes: 1, owner: 1, status: 1, priority: 1, rate: 1 })).toEqual([]);
  });

  it('role names compare as role files are found: without regard to case', () => {
    expect(sameRole('manager', 'Manager')).toBe(true);
    expect(sameRole('Managers', 'Manager')).toBe(false);
  });
});

describe('role warnings', () => {
  it(
    'a known CLI with stdin none and no {{prompt}} argument gets no prompt; with either it does; ' +
      'another program is not judged',
    () => {
      expect(
        roleWarnings(roleOf('---\ncommand: [claude, -p, --output-format, json]\nstdin: none\n---\nx\n'), undefined).map(
          (w) => w.line,
        ),
      ).toEqual([3]);
      expect(
        roleWarnings(roleOf('---\ncommand: [npx, "@openai/codex", exec]\nstdin: none\n---\nx\n'), undefined),
      ).toHaveLength(1);
      expect(
        roleWarnings(roleOf('---\ncommand: [claude, -p, --output-format, json]\nstdin: prompt\n---\nx\n'), undefined),
      ).toEqual([]);
      expect(
        roleWarnings(roleOf('---\ncommand: [claude, -p, --, "{{prompt}}"]\nstdin: none\n---\nx\n'), undefined),
      ).toEqual([]);
      expect(roleWarnings(roleOf('---\ncommand: [./my-agent.sh]\nstdin: none\n---\nx\n'), undefined)).toEqual([]);
    },
  );

  it(
    'a role timeout shorter than supervisor.timeout is named with the one that wins; longer, ' +
      'equal or no board timeout is not',
    () => {
      const role = roleOf('---\ncommand: [node, a.js]\ntimeout: 1m\n---\nx\n');
      expect(roleWarnings(role, 30 * 60_000)[0]?.message).toMatch(
        /^timeout 1m00s is shorter than supervisor\.timeout 30m00s in kanban\.yaml, and a role's timeout wins/,
      );
      expect(roleWarnings(role, 60_000)).toEqual([]);
      expect(roleWarnings(role, 30_000)).toEqual([]);
      expect(roleWarnings(role, undefined)).toEqual([]);
    },
  );
});

describe('YAML problems', () => {
  it('an unclosed quote is at the line it opens on, double or single', () => {
    expect(parseYaml('a: 1\nb: "abc\nc: 2\nd: 3\n')).toMatchObject({
      ok: false,
      line: 2,
      message: 'a double quote opened here is never closed',
    });
    expect(parseYaml("a: 1\nb: 'abc\nc: 2\n")).toMatchObject({
      ok: false,
      line: 2,
      message: 'a single quote opened here is never closed',
    });
  });

  it('": " inside a value and an unquoted {{placeholder}} say to quote', () => {
    expect(parseYaml('a: 1\ntitle: a: b\n')).toMatchObject({
      ok: false,
      line: 2,
      fix: expect.stringMatching(/^Quote the value/),
    });
    expect(parseYaml('command:\n  - agent\n  - {{task_file}}\n')).toMatchObject({
      ok: false,
      line: 3,
      message: '{{task_file}} is not in quotes, so YAML reads it as a mapping, not as text',
      fix: 'Quote it: "{{task_file}}".',
    });
    expect(parseYaml('command: [agent, "{{task_file}}"]\n')).toMatchObject({ ok: true });
  });
});

describe('the error line of a crash', () => {
  it('is the line above the stack frames of a Node crash, or the last line of a Python traceback', () => {
    const node = [
      'file:///x/crash.mjs:3',
      'x.boom();',
      '^',
      "TypeError: Cannot read properties of null (reading 'boom')",
      'at file:///x/crash.mjs:3:3',
      'at ModuleJob.run (node:internal/modules/esm/module_job:234:25)',
      'at async ModuleLoader.import (node:internal/modules/esm/loader:473:24)',
      'Node.js v22.11.0',
    ];
    expect(crashLine(node)).toBe("TypeError: Cannot read properties of null (reading 'boom')");
    const python = [
      'Traceback (most recent call last):',
      'File "a.py", line 1, in <module>',
      'x()',
      "NameError: name 'x' is not defined",
    ];
    expect(crashLine(python)).toBe("NameError: name 'x' is not defined");
    expect(crashLine(['error: no API key', 'set GEMINI_API_KEY'])).toBeUndefined();
    expect(crashLine(['we are at home'])).toBeUndefined();
  });
});

describe('fields in plain words', () => {
  it('names a field as the file writes it, counting list items from 1', async () => {
    const { fieldWords, plainSchemaMessage } = await import('../../src/board/pointer-words.js');
    expect(
      ['/current', '/supervisor/timeout', '/tasks/1', '/supervisor/periodic/0/role', '', '/'].map(fieldWords),
    ).toEqual(['current', 'supervisor.timeout', 'tasks item 2', 'supervisor.periodic item 1, role', '', '']);
    expect(plainSchemaMessage('/ is missing the required field "command"')).toBe(
      'is missing the required field "command"',
    );
    expect(plainSchemaMessage('/command/2 must be a string (got {})')).toBe('command item 3 must be a string (got {})');
  });
});
