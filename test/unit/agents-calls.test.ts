import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { handedSchema, withCallOptions } from '../../src/agents/call-options.js';
import { callBudget, callBudgetUsd } from '../../src/budget/call-budget.js';
import { loadSeams } from '../../src/run/capability-list.js';
import { classifyFailure } from '../../src/agents/index.js';
import { planAgent, prepareAgent } from '../../src/agent/prepare.js';
import { checkBoard } from '../../src/board/check.js';
import { dryRun } from '../../src/commands/dry-run.js';
import { readBoard } from '../../src/board/read-board.js';
import { resolveSettings } from '../../src/board/settings.js';
import { extractReply } from '../../src/reply/extract.js';
import { AGENTS } from '../../src/agents/index.js';
import { cliReplySchema } from '../../src/reply/reply-schema.js';
import { checkReply } from '../../src/reply/check-reply.js';
import { createSchemaCompiler } from '../../src/schemas.js';
import { strictProblem } from '../fixtures/fake-model-schema.mjs';
import { boardWithTasks, role, tempDir } from '../helpers.js';

const CLAUDE = ['claude', '-p', '--output-format', 'stream-json', '--verbose', '--', '{{prompt}}'];
const CODEX = ['codex', 'exec', '--json', '--skip-git-repo-check', '--', '{{prompt}}'];
const lines = (...events: object[]) => events.map((e) => JSON.stringify(e)).join('\n');

describe("the reply schema handed to a CLI that enforces it (role's cli_schema: true)", () => {
  it('is the plain reply schema for Claude Code, as JSON in its argv', () => {
    const handed = handedSchema(CLAUDE, false);
    expect(typeof handed === 'object' && JSON.parse(handed.text)).toEqual({
      type: 'object',
      properties: { status: { enum: ['ok', 'blocked', 'error', 'escalate'] }, message: { type: 'string' } },
      required: ['status', 'message'],
    });
    expect(typeof handed === 'object' && handed.file).toBeUndefined();
  });

  it("is the strict form for Codex, which OpenAI's check accepts, in a file named by its content", () => {
    for (const manager of [false, true]) {
      const handed = handedSchema(CODEX, manager, {
        properties: { files: { type: 'array', items: { type: 'string' } } },
      });
      if (typeof handed === 'string') throw new Error(handed);
      const strict = JSON.parse(handed.text) as Record<string, unknown>;
      expect(strictProblem(strict)).toBeUndefined();
      expect(handed.file).toMatch(/^\.kanban-supervisor\/schemas\/[0-9a-f]{16}\.json$/);
      expect(strict).toMatchObject({ additionalProperties: false, properties: { status: { type: 'string' } } });
      // An optional key becomes required and nullable; one that allowed null already stays as it was.
      if (manager)
        expect(strict.properties).toMatchObject({
          phase: { anyOf: [{ type: 'string' }, { type: 'null' }] },
          sub_phase: { type: ['string', 'null'] },
        });
      // The plain reply schema is not in the strict form: the check used here refuses it.
      expect(strictProblem(cliReplySchema(manager) as object)).toMatch(/additionalProperties/);
    }
  });

  it('is refused, with the reason, for a CLI that takes none and a role schema no CLI can be handed', () => {
    expect(handedSchema(['gemini', '--prompt={{prompt}}'], false)).toMatch(/^gemini cannot be handed a schema/);
    expect(handedSchema(['codex', '{{prompt}}'], false)).toMatch(/^codex cannot be handed a schema in this command/);
    expect(handedSchema(['./run-claude.sh'], false)).toMatch(/^run-claude\.sh cannot/);
    expect(handedSchema(CLAUDE, false, { oneOf: [{}, {}] })).toMatch(
      /role's schema cannot be handed on: it uses oneOf/,
    );
    expect(handedSchema(CODEX, false, { type: 'object', properties: { any: { type: 'object' } } })).toMatch(
      /no strict form for codex: \/any is an object whose keys are not all listed/,
    );
  });

  it(
    'counts a null the strict form forced for an optional key as that key left out, ' +
      'keeping a null the schema allows',
    () => {
      const handed = handedSchema(CODEX, true);
      if (typeof handed === 'string') throw new Error(handed);
      const rules = { manager: true, strictFrom: handed.strictFrom as object };
      const answer = { status: 'ok', message: 'm', next_task: null, tasks: [], phase: null, sub_phase: null };
      expect(checkReply(answer, rules)).toEqual({ valid: true });
      expect(checkReply(answer, { manager: true })).toMatchObject({ valid: false });
      expect(checkReply({ ...answer, phase: 5 }, rules)).toMatchObject({ valid: false });
    },
  );

  it("does so at any depth of the role's own schema, whose keys the strict form requires too", () => {
    const own = {
      type: 'object',
      required: ['files'],
      properties: {
        files: {
          type: 'array',
          items: {
            type: 'object',
            required: ['path'],
            properties: { path: { type: 'string' }, note: { type: 'string' } },
          },
        },
      },
    };
    const handed = handedSchema(CODEX, false, own);
    if (typeof handed === 'string') throw new Error(handed);
    expect(strictProblem(JSON.parse(handed.text))).toBeUndefined();
    const extra = createSchemaCompiler().compile('own', own);
    const reply = { status: 'ok', message: 'm', files: [{ path: 'a.ts', note: null }] };
    expect(checkReply(reply, { manager: false, extra, strictFrom: handed.strictFrom as object })).toEqual({
      valid: true,
    });
    expect(checkReply(reply, { manager: false, extra })).toMatchObject({ valid: false });
  });
});

describe('the options one call of a CLI is handed', () => {
  const args = (command: string[]) => command.slice(1).map((a) => a.replace('{{prompt}}', 'Do it.'));

  it('go before the `--` that ends the options, after the subcommand, and never twice', () => {
    const schema = { text: '{"type":"object"}' };
    expect(withCallOptions(args(CLAUDE), CLAUDE, { schema, budgetUsd: 1.5 })).toEqual({
      args: [
        '-p',
        '--output-format',
        'stream-json',
        '--verbose',
        '--json-schema',
        schema.text,
        '--max-budget-usd',
        '1.5',
        '--',
        'Do it.',
      ],
      added: { at: 5, count: 4 },
    });
    const own = ['claude', '--max-budget-usd', '9', '-p', '{{prompt}}'];
    expect(withCallOptions(args(own), own, { budgetUsd: 1 }).args).toEqual(args(own));
    const codex = withCallOptions(args(CODEX), CODEX, {
      schema: { ...schema, file: 'x' },
      schemaPath: '/b/x',
      budgetUsd: 1,
    });
    expect(codex.args).toEqual(['exec', '--json', '--skip-git-repo-check', '--output-schema', '/b/x', '--', 'Do it.']);
    expect(withCallOptions(['claude', 'run', 'x'], ['npx', 'claude', 'run', 'x'], { budgetUsd: 2 }).args).toEqual([
      'claude',
      '--max-budget-usd',
      '2',
      'run',
      'x',
    ]);
  });

  it(
    "hand a worker's call what this run's budget has left, the Manager's the whole budget, cut down, " +
      'and nothing once nothing is left',
    () => {
      const spent = { spend: { total: { costUsd: 0.3 } } };
      expect(callBudgetUsd(spent, { supervisor: { max_cost_usd: 1 } }, false)).toBeCloseTo(0.7);
      expect(callBudgetUsd(spent, { supervisor: { max_cost_usd: 1 } }, true)).toBe(1);
      expect(callBudgetUsd({}, { supervisor: {} }, false)).toBeUndefined();
      expect(callBudget(0.70000000001)).toBe(0.7);
      expect(callBudget(0.123456)).toBe(0.1234);
      expect(callBudget(0.00001)).toBeUndefined();
      expect(callBudget(-2)).toBeUndefined();
    },
  );
});

describe('a run preparing an agent that hands its CLI the reply schema', () => {
  let dir = '';

  it(
    'writes the schema file once, before the first attempt, and every attempt has the same argv; ' +
      'a dry run writes nothing',
    async () => {
      // A program named codex (never run here), so the role's command is found.
      const bin = tempDir('ks-bin-');
      writeFileSync(path.join(bin, 'codex'), '#!/bin/sh\n', { mode: 0o755 });
      const codexRole = role([path.join(bin, 'codex'), ...CODEX.slice(1)], 'stdin: none\ncli_schema: true\n');
      dir = boardWithTasks(
        1,
        { 'roles/implementor.md': codexRole },
        'phase: execute\nsupervisor:\n  max_cost_usd: 2\n',
      );
      const board = readBoard(path.join(dir, 'kanban.yaml'));
      const settings = resolveSettings(board.settings, {});
      const inputs = { role: 'Implementor', kanban_file: 'kanban.yaml', task_file: 'tasks/001.md' };
      const ctx = {
        env: {},
        runId: 'r',
        schemas: createSchemaCompiler(),
        spend: { total: { costUsd: 0.5 } },
        transforms: (await loadSeams()).transforms,
      };
      const planned = planAgent(ctx, board, settings, inputs, 1);
      expect(existsSync(path.join(dir, '.kanban-supervisor'))).toBe(false);
      const first = prepareAgent(ctx, board, settings, inputs, 1);
      const file = first.invocation.args[first.invocation.args.indexOf('--output-schema') + 1] as string;
      expect(first.invocation.args).toEqual(planned.invocation.args);
      expect(file).toBe(path.join(dir, planned.schemaFile?.file as string));
      expect(strictProblem(JSON.parse(readFileSync(file, 'utf8')))).toBeUndefined();
      expect(prepareAgent(ctx, board, settings, inputs, 1).invocation.args).toEqual(first.invocation.args);
      expect(readdirSync(path.dirname(file))).toEqual([path.basename(file)]);
      // Codex takes no budget option; the reply rules read the strict form's nulls.
      expect(first.invocation.args.join(' ')).not.toContain('budget');
      expect(first.rules.strictFrom).toBeDefined();
    },
  );

  it('shows in --dry-run: the options in the argv, the prompt still found among them, nothing written', async () => {
    dir = boardWithTasks(1, { 'roles/implementor.md': role(CLAUDE, 'stdin: none\ncli_schema: true\n') });
    const plan = await dryRun(
      path.join(dir, 'kanban.yaml'),
      { supervisor: { max_cost_usd: 2 } },
      { PATH: '/nonexistent' },
    );
    const argv = plan.next?.argv ?? [];
    expect(argv.slice(0, 9)).toEqual([
      ...CLAUDE.slice(0, 5),
      '--json-schema',
      expect.stringMatching(/^\{"type":"object"/),
      '--max-budget-usd',
      '2',
    ]);
    expect(argv[plan.next?.promptArgs[0] as number]).toBe('Do tasks/001.md.\n');
    expect(existsSync(path.join(dir, '.kanban-supervisor'))).toBe(false);
  });

  it('is a problem `validate` names at the line, for a CLI that cannot be handed one', () => {
    dir = boardWithTasks(1, {
      'roles/implementor.md': role(['gemini', '--prompt={{prompt}}'], 'stdin: none\ncli_schema: true\n'),
    });
    const { problems } = checkBoard({ file: path.join(dir, 'kanban.yaml'), env: { PATH: '/nonexistent' } });
    expect(problems.find((p) => p.message.startsWith('cli_schema:'))).toMatchObject({
      file: 'roles/implementor.md',
      line: 4,
      message: expect.stringMatching(/gemini cannot be handed a schema .* Set `cli_schema: false`/),
    });
  });
});

describe("Claude Code's own structured signals", () => {
  const result = (fields: object) => ({ type: 'result', subtype: 'success', is_error: true, ...fields });
  const classify = (stdout: string) =>
    classifyFailure({ stdout, stderr: '', exitCode: 1 }, { command: ['claude'], now: new Date(0), timeZone: 'UTC' });

  it('a rejected rate_limit_event with resetsAt is a usage limit until then, whatever the words say', () => {
    const stdout = lines(
      { type: 'rate_limit_event', rate_limit_info: { status: 'rejected', resetsAt: 1776700845 } },
      result({ api_error_status: null, result: 'Something went wrong, sorry.' }),
    );
    expect(classify(stdout)).toEqual({
      kind: 'usage_limit',
      cli: 'claude',
      detail: 'Something went wrong, sorry.',
      resetAt: new Date(1776700845 * 1000),
    });
  });

  it('a run out of structured-output retries or its --max-budget-usd gave invalid output, named in the issue', () => {
    for (const [subtype, error] of [
      ['error_max_structured_output_retries', 'Failed to provide valid structured output after 5 attempts'],
      ['error_max_budget_usd', 'Reached maximum budget ($0.5)'],
    ]) {
      const stdout = lines(result({ subtype, errors: [error] }));
      expect(classify(stdout)).toEqual({ kind: 'invalid' });
      expect(extractReply(stdout, 'auto', AGENTS)).toEqual({
        found: false,
        issue: `reported an error as Claude Code (${subtype}): ${error}`,
      });
    }
  });
});
