import { readFileSync } from 'node:fs';
import type { ErrorObject, ValidateFunction } from 'ajv';
import AjvModule from 'ajv';

// ajv is CommonJS; under NodeNext its default export arrives wrapped.
const Ajv = AjvModule.default;

/** The JSON Schemas shipped in `schemas/`. */
export type SchemaName = 'kanban' | 'role' | 'reply' | 'manager-reply';

const SCHEMA_DIR = new URL('../schemas/', import.meta.url);
let ajv: InstanceType<typeof Ajv> | undefined;
const compiled = new Map<string, ValidateFunction>();

function instance(): InstanceType<typeof Ajv> {
  if (!ajv) {
    ajv = new Ajv({ allErrors: true, strict: false });
    for (const name of ['kanban', 'role', 'reply', 'manager-reply'] as const) {
      // Not checked against the JSON Schema meta-schema: compiling that costs more than all of
      // these, and the shipped schemas are checked by the tests. A role's own schema still is.
      ajv.addSchema(JSON.parse(readFileSync(new URL(`${name}.schema.json`, SCHEMA_DIR), 'utf8')) as object, undefined, undefined, false);
    }
  }
  return ajv;
}

/** The compiled validator for a shipped schema; compiled once per process. */
export function validator(name: SchemaName): ValidateFunction {
  const id = `https://kanban-supervisor.dev/schemas/${name}.schema.json`;
  let fn = compiled.get(id);
  if (!fn) {
    fn = instance().getSchema(id);
    if (!fn) throw new Error(`schema ${name} is missing from ${SCHEMA_DIR.pathname}`);
    compiled.set(id, fn);
  }
  return fn;
}

/** Compile a user-supplied schema (a role's extra reply schema), cached by its key. */
export function compileExtra(key: string, schema: object): ValidateFunction {
  let fn = compiled.get(key);
  if (!fn) {
    fn = instance().compile(schema);
    compiled.set(key, fn);
  }
  return fn;
}

/** The shipped schema itself, for the log's **Expected:** section. */
export function schemaText(name: SchemaName): object {
  return instance().getSchema(`https://kanban-supervisor.dev/schemas/${name}.schema.json`)?.schema as object;
}

/** One `path: message (got value)` line per ajv error, deduplicated. */
export function describeErrors(errors: ErrorObject[] | null | undefined, data: unknown): string[] {
  const lines = new Set<string>();
  for (const error of errors ?? []) {
    if (error.keyword === 'if' || error.keyword === 'allOf') continue;
    const where = error.instancePath || '/';
    lines.add(`${where} ${describeOne(error)}${gotSuffix(error, data)}`);
  }
  return [...lines];
}

function describeOne(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return `is missing the required field "${String(params.missingProperty)}"`;
    case 'enum':
      return `must be one of ${(params.allowedValues as unknown[]).map(String).join(', ')}`;
    case 'type':
      return `must be ${articleList(String(params.type).split(','))}`;
    case 'minItems':
      return `must have at least ${String(params.limit)} item(s)`;
    default:
      return error.message ?? 'is invalid';
  }
}

function articleList(types: string[]): string {
  const named = types.map((t) => (t === 'null' ? 'null' : t === 'array' || t === 'object' || t === 'integer' ? `an ${t}` : `a ${t}`));
  return named.join(' or ');
}

function gotSuffix(error: ErrorObject, data: unknown): string {
  if (error.keyword === 'required') return '';
  const value = pointerGet(data, error.instancePath);
  return ` (got ${preview(value)})`;
}

/** A short, single-line rendering of a value for messages. */
export function preview(value: unknown, max = 60): string {
  let text: string;
  try {
    text = value === undefined ? 'nothing' : JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function pointerGet(data: unknown, pointer: string): unknown {
  let node = data;
  for (const raw of pointer.split('/').slice(1)) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (node === null || typeof node !== 'object' || !Object.hasOwn(node, key)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/** The reply schema as one flat object, for the log's **Expected:** section. */
export function expectedReply(manager: boolean): object {
  const base = schemaText('reply') as { required: string[]; properties: object };
  const strip = ({ $schema: _s, $id: _i, description: _d, title: _t, ...rest }: Record<string, unknown>) => rest;
  if (!manager) return strip(base as unknown as Record<string, unknown>);
  const extra = schemaText('manager-reply') as { required: string[]; properties: object };
  return {
    type: 'object',
    required: [...base.required, ...extra.required],
    properties: { ...base.properties, ...extra.properties },
    note: 'next_task must be one of tasks; every path relative, inside the board folder and an existing file',
  };
}
