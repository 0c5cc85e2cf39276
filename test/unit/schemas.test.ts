import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import AjvModule from 'ajv';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs build script, without types
import * as compileSchemas from '../../scripts/compile-schemas.mjs';
import { createSchemaCompiler, describeErrors, schemaText, validator, type SchemaName } from '../../src/schemas.js';
import { ROOT } from '../helpers.js';
const { AJV_OPTIONS, kanbanSchemaSource, listedCapabilities, validatorsSource } = compileSchemas as {
  AJV_OPTIONS: object;
  kanbanSchemaSource(): string;
  listedCapabilities(): string[];
  validatorsSource(): string;
};

const Ajv = AjvModule.default;
const NAMES: SchemaName[] = ['kanban', 'role', 'reply', 'manager-reply'];
const read = (name: string) =>
  JSON.parse(readFileSync(path.join(ROOT, 'schemas', `${name}.schema.json`), 'utf8')) as object;

// The supervisor compiles its own schemas without checking them against the meta-schema.
describe('the shipped JSON Schemas', () => {
  it.each(NAMES)('%s.schema.json is a valid draft-07 schema', (name) => {
    const ajv = new Ajv({ allErrors: true, strict: false });
    expect(ajv.validateSchema(read(name)), JSON.stringify(ajv.errors)).toBe(true);
  });
});

describe('schemas/kanban.schema.json', () => {
  it("is the core's schema with each listed capability's supervisor: keys (run npm run build if not)", () => {
    const text = readFileSync(path.join(ROOT, 'schemas', 'kanban.schema.json'), 'utf8');
    expect(text).toBe(kanbanSchemaSource());
    const keysOf = (file: string) =>
      existsSync(file) ? Object.keys(JSON.parse(readFileSync(file, 'utf8')) as object) : [];
    type Kanban = { properties: { supervisor: { properties: object } } };
    const supervisorKeys = (json: string) => Object.keys((JSON.parse(json) as Kanban).properties.supervisor.properties);
    const core = supervisorKeys(readFileSync(path.join(ROOT, 'src', 'board', 'kanban.schema.json'), 'utf8'));
    // The core's own, then each listed capability's, in the list's order.
    expect(listedCapabilities().length).toBeGreaterThan(5);
    expect(core).toContain('max_retries');
    expect(supervisorKeys(text)).toEqual([
      ...core,
      ...listedCapabilities().flatMap((folder) => keysOf(path.join(ROOT, 'src', folder, 'settings.schema.json'))),
    ]);
  });
});

// They are compiled at build time (scripts/compile-schemas.mjs) into src/generated/validators.ts.
describe('the validators compiled at build time', () => {
  it('were compiled from the schemas as they are now (run npm run build if not)', () => {
    expect(readFileSync(path.join(ROOT, 'src', 'generated', 'validators.ts'), 'utf8')).toBe(validatorsSource());
  });

  const samples: Record<SchemaName, unknown[]> = {
    kanban: [
      { current: null, tasks: [] },
      {
        current: 'tasks/a.md',
        tasks: ['tasks/a.md'],
        phase: 'execute',
        supervisor: { max_retries: 3, timeout: '20m', kill_grace: 5 },
      },
      {},
      { current: 5, tasks: 'tasks/a.md' },
      {
        current: null,
        tasks: [1, null],
        phase: 7,
        sub_phase: [],
        supervisor: { max_retries: -1, max_steps: 0, max_same_task: 1.5, timeout: true, idle_timeout: {} },
      },
      { current: null, tasks: [], supervisor: 'fast' },
    ],
    role: [
      { command: ['node', 'agent.js'] },
      { command: ['x'], stdin: 'json', output: 'auto', timeout: '5m', env: { A: 'b' }, schema: 's.json' },
      {},
      { command: [] },
      { command: 'claude -p', stdin: 'pipe', output: 7, env: { A: {} }, timeout: [] },
      { command: [''] },
    ],
    reply: [{ status: 'ok', message: 'done', extra: [1] }, {}, { status: 'fine', message: 3 }, { status: null }],
    'manager-reply': [
      { status: 'ok', message: '', next_task: null, tasks: ['tasks/a.md'] },
      { status: 'ok', message: '' },
      { status: 'bad', next_task: 3, tasks: [null], phase: 1 },
      { message: 'x', next_task: 'a', tasks: 'a' },
    ],
  };

  it.each(NAMES)('report exactly what ajv compiling %s.schema.json at run time reports', (name) => {
    const ajv = new Ajv({ ...(AJV_OPTIONS as object) });
    for (const other of NAMES) ajv.addSchema(read(other), undefined, undefined, false);
    const compiled = ajv.getSchema(`https://kanban-supervisor.dev/schemas/${name}.schema.json`);
    if (!compiled) throw new Error(`${name} did not compile`);
    const precompiled = validator(name);
    for (const data of samples[name]) {
      expect(precompiled(data), JSON.stringify(data)).toBe(compiled(data));
      expect(precompiled.errors ?? null, JSON.stringify(data)).toEqual(compiled.errors ?? null);
    }
  });

  it('give the messages the supervisor prints', () => {
    const validate = validator('kanban');
    const data = { current: 5, supervisor: { max_retries: 'three' } };
    expect(validate(data)).toBe(false);
    expect(describeErrors(validate.errors, data)).toEqual([
      '/ is missing the required field "tasks"',
      '/current must be a string or null (got 5)',
      '/supervisor/max_retries must be an integer (got "three")',
    ]);
  });
});

describe("a role's own reply schema", () => {
  it('is compiled when first used, once per key', () => {
    const schema = {
      type: 'object',
      required: ['files'],
      properties: { files: { type: 'array', items: { type: 'string' }, minItems: 1 } },
    };
    const compiler = createSchemaCompiler();
    const validate = compiler.compile('test-role-schema', schema);
    expect(compiler.compile('test-role-schema', schema)).toBe(validate);
    expect(validate({ files: ['a.ts'] })).toBe(true);
    const data = { files: [] };
    expect(validate(data)).toBe(false);
    expect(describeErrors(validate.errors, data)).toEqual(['/files must have at least 1 item(s) (got [])']);
  });

  it('may refer to a shipped schema by its $id', () => {
    const validate = createSchemaCompiler().compile('test-role-schema-ref', {
      allOf: [{ $ref: 'https://kanban-supervisor.dev/schemas/reply.schema.json' }],
      required: ['files'],
    });
    expect(validate({ status: 'ok', message: '', files: [] })).toBe(true);
    expect(validate({ status: 'done', files: [] })).toBe(false);
  });

  it('is still checked against the JSON Schema meta-schema', () => {
    expect(() => createSchemaCompiler().compile('test-role-schema-bad', { type: 'objekt' })).toThrow(
      /schema is invalid/,
    );
  });
});

describe('schemaText', () => {
  it.each(NAMES)('gives %s.schema.json as shipped', (name) => {
    expect(schemaText(name)).toEqual(read(name));
  });
});
