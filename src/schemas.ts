import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type AjvModule from 'ajv';
import type { ErrorObject, ValidateFunction } from 'ajv';
import * as shipped from './generated/validators.js';

/** The JSON Schemas shipped in `schemas/`. */
export type SchemaName = 'kanban' | 'role' | 'reply' | 'manager-reply';

/** A schema's validator: true when the data matches; otherwise the reasons are in `errors`. */
export interface Validator {
  (data: unknown): boolean;
  errors?: ErrorObject[] | null;
}

const NAMES: readonly SchemaName[] = ['kanban', 'role', 'reply', 'manager-reply'];
const SCHEMA_DIR = new URL('../schemas/', import.meta.url);

// The shipped schemas are compiled at build time (scripts/compile-schemas.mjs, ajv standalone
// code), so a run loads no ajv and compiles nothing unless a role names its own schema.
const SHIPPED: Record<SchemaName, Validator> = {
  kanban: shipped.kanban as Validator,
  role: shipped.role as Validator,
  reply: shipped.reply as Validator,
  'manager-reply': shipped.managerReply as Validator,
};

/** The validator for a shipped schema, compiled at build time. */
export function validator(name: SchemaName): Validator {
  return SHIPPED[name];
}

type Ajv = InstanceType<typeof AjvModule.default>;
let ajv: Ajv | undefined;
const compiled = new Map<string, ValidateFunction>();

// Loaded on first use: only a role's own reply schema needs ajv at run time.
function instance(): Ajv {
  if (!ajv) {
    // ajv is CommonJS; required, it is loaded synchronously, and only now.
    const { default: AjvClass } = createRequire(import.meta.url)('ajv') as typeof AjvModule;
    // The same options as scripts/compile-schemas.mjs compiles the shipped schemas with.
    ajv = new AjvClass({ allErrors: true, strict: false });
    for (const name of NAMES) {
      // The shipped schemas are there for a role schema's $ref. Not checked against the JSON
      // Schema meta-schema (the tests check them); a role's own schema still is.
      ajv.addSchema(schemaText(name), undefined, undefined, false);
    }
  }
  return ajv;
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

const texts = new Map<SchemaName, object>();

/** The shipped schema itself, for the log's **Expected:** section; read once per process. */
export function schemaText(name: SchemaName): object {
  let schema = texts.get(name);
  if (!schema) {
    schema = JSON.parse(readFileSync(new URL(`${name}.schema.json`, SCHEMA_DIR), 'utf8')) as object;
    texts.set(name, schema);
  }
  return schema;
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
