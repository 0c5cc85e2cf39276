import {
  chownSync,
  closeSync,
  existsSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readFileSync,
  symlinkSync,
} from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { boardWithTasks, events, read, role, runCli, tempDir } from '../helpers.js';
import { OWNER, reachableByAll } from './fenced-users.js';

// Issue 31, item 4: a role's schema is parsed by the supervisor, so it is never the agent's to
// write, and reading and applying it is bounded whatever it holds.
const FENCE = process.getuid?.() === 0 && existsSync('/usr/bin/bwrap');
const QUICK = { timeout: 60_000 };

/** A role whose agent runs `script` with sh, then prints `reply`. */
function shRole(script: string, reply: string, extra = ''): string {
  return role(['sh', '-c', `${script}\nprintf '%s\\n' '${reply}'`], `stdin: none\n${extra}`);
}

function withSchema(roleText: string, schema: string): string {
  return roleText.replace('---\n', `---\nschema: ${schema}\n`);
}

const OK = '{"status":"ok","message":"done"}';
const STRICT = JSON.stringify({ properties: { message: { const: 'exactly this' } } });

describe.skipIf(!FENCE)('a role schema when a role of the board is fenced', () => {
  it('in the board folder (writable in the fence) is refused by validate and a run, exit 2, with the fix', async () => {
    const marker = path.join(tempDir('ks-marks-'), 'ran');
    const dir = boardWithTasks(1, {
      'roles/implementor.md': withSchema(shRole(`touch ${marker}`, OK, 'sandbox: true\n'), 'schemas/reply.json'),
      'schemas/reply.json': STRICT,
    });
    const before = read(dir, 'kanban.yaml');
    const validate = await runCli(['validate'], { cwd: dir, ...QUICK });
    expect(validate.exitCode).toBe(2);
    const fix =
      'schema file "schemas/reply.json" lies in the board folder, where a fenced agent (roles/implementor.md) ' +
      'can write, and could loosen it. Move it to .kanban-supervisor/schemas/reply.json (read-only in the fence) ' +
      'and set schema: .kanban-supervisor/schemas/reply.json.';
    expect(validate.stdout + validate.stderr).toContain(`roles/implementor.md:2: ${fix}`);
    const run = await runCli([], { cwd: dir, ...QUICK });
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain(fix);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(existsSync(marker)).toBe(false);
    expect(read(dir, 'kanban.yaml')).toBe(before);
  });

  it('a symlink in .kanban-supervisor/schemas/ to a schema in the board folder is the board folder’s', async () => {
    const dir = boardWithTasks(1, {
      'roles/implementor.md': withSchema(
        shRole('true', OK, 'sandbox: true\n'),
        '.kanban-supervisor/schemas/reply.json',
      ),
      'reply.json': STRICT,
    });
    mkdirSync(path.join(dir, '.kanban-supervisor/schemas'), { recursive: true });
    symlinkSync('../../reply.json', path.join(dir, '.kanban-supervisor/schemas/reply.json'));
    const validate = await runCli(['validate'], { cwd: dir, ...QUICK });
    expect(validate.exitCode).toBe(2);
    expect(validate.stdout + validate.stderr).toMatch(/lies in the board folder, where a fenced agent/);
  });

  it('in .kanban-supervisor/schemas/ stands: the fenced agent cannot loosen it, and its reply is held to it', async () => {
    const schema = '.kanban-supervisor/schemas/reply.json';
    // The agent tries to replace the schema with one that takes anything, then replies against the real one.
    const dir = boardWithTasks(
      1,
      {
        'roles/implementor.md': withSchema(
          shRole(
            `echo '{}' > ${schema} 2>/dev/null; echo '{}' > .kanban-supervisor/x 2>/dev/null; true`,
            OK,
            'sandbox: true\n',
          ),
          schema,
        ),
        [schema]: STRICT,
      },
      'phase: execute\nsupervisor:\n  max_retries: 0\n',
    );
    // Run by root, a fenced agent is the board folder's owner on the host (a root-owned board is refused).
    for (const entry of ['', 'tasks', 'tasks/001.md', 'roles', 'roles/implementor.md', 'roles/manager.md']) {
      if (existsSync(path.join(dir, entry))) chownSync(path.join(dir, entry), OWNER, OWNER);
    }
    const restore = reachableByAll([process.execPath, dir]);
    try {
      expect((await runCli(['validate'], { cwd: dir, ...QUICK })).exitCode).toBe(0);
      const run = await runCli([], { cwd: dir, ...QUICK });
      expect(read(dir, schema)).toBe(STRICT);
      expect(run.exitCode).toBe(3);
    } finally {
      restore();
    }
    const finished = events(dir).find((e) => e.type === 'attempt_finished');
    expect(String(finished?.issue)).toMatch(/\/message must be equal to constant/);
  });
});

describe('a role schema file', () => {
  it('of 3 GB (sparse) is refused with a clear message and exit 2, not an internal error', async () => {
    const dir = boardWithTasks(1, {
      'roles/implementor.md': withSchema(shRole('true', OK), 'schemas/big.json'),
    });
    mkdirSync(path.join(dir, 'schemas'));
    const fd = openSync(path.join(dir, 'schemas/big.json'), 'w');
    ftruncateSync(fd, 3 * 1024 ** 3);
    closeSync(fd);
    for (const args of [['validate'], []]) {
      const result = await runCli(args, { cwd: dir, ...QUICK });
      expect(result.exitCode).toBe(2);
      expect(result.stdout + result.stderr).toMatch(
        /roles\/implementor\.md(:2)?: schema file "schemas\/big\.json" is 3221225472 bytes, more than a schema's 1048576 \(1 MiB\)\. /,
      );
      expect(result.stderr).not.toMatch(/internal error/i);
    }
  });

  it('with a backtracking pattern (^(\\w+\\s?)*$) judges a long non-matching reply in linear time', async () => {
    const schema = JSON.stringify({ properties: { message: { pattern: String.raw`^(\w+\s?)*$` } } });
    // 5,000 word characters then one that ends no word: a backtracking engine tries 2^5000 splits.
    const reply = JSON.stringify({ status: 'ok', message: `${'a'.repeat(5000)}!` });
    const dir = boardWithTasks(
      1,
      {
        'roles/implementor.md': withSchema(shRole('true', reply), 'schemas/reply.json'),
        'schemas/reply.json': schema,
      },
      'phase: execute\nsupervisor:\n  max_retries: 0\n',
    );
    const started = Date.now();
    // A backtracking engine never ends on it; RE2 takes milliseconds (the run, seconds when loaded).
    const run = await runCli([], { cwd: dir, timeout: 50_000 });
    expect(run.timedOut).toBe(false);
    expect(run.exitCode).toBe(3);
    expect(Date.now() - started).toBeLessThan(45_000);
    const finished = events(dir).find((e) => e.type === 'attempt_finished');
    expect(String(finished?.issue)).toMatch(/\/message must match pattern/);
  }, 90_000);

  it('with a pattern RE2 cannot run (a backreference) is refused with the reason, exit 2', async () => {
    const dir = boardWithTasks(1, {
      'roles/implementor.md': withSchema(shRole('true', OK), 'schemas/reply.json'),
      'schemas/reply.json': JSON.stringify({ properties: { message: { pattern: String.raw`^(a)\1$` } } }),
    });
    const validate = await runCli(['validate'], { cwd: dir, ...QUICK });
    expect(validate.exitCode).toBe(2);
    expect(validate.stdout + validate.stderr).toMatch(
      /schemas\/reply\.json: is not a valid JSON Schema \(the pattern "\^\(a\)\\\\1\$" is not RE2 syntax .*lookaround and backreferences are not supported\)/,
    );
    expect(readFileSync(path.join(dir, 'kanban.yaml'), 'utf8')).toMatch(/current: tasks\/001\.md/);
  });
});
