import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type AjvModule from 'ajv';
import type { ErrorObject, ValidateFunction } from 'ajv';
import type { RE2JS as RE2JSClass } from 're2js';
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
// code): a run compiles nothing unless a role names its own schema.
const SHIPPED: Readonly<Record<SchemaName, Validator>> = {
  kanban: shipped.kanban as Validator,
  role: shipped.role as Validator,
  reply: shipped.reply as Validator,
  'manager-reply': shipped.managerReply as Validator,
};

/** The validator for a shipped schema, compiled at build time. */
export function validator(name: SchemaName): Validator {
  return SHIPPED[name];
}

/** A shipped schema as JSON, read from `schemas/`. */
export function schemaText(name: SchemaName): Record<string, unknown> {
  return JSON.parse(readFileSync(new URL(`${name}.schema.json`, SCHEMA_DIR), 'utf8')) as Record<string, unknown>;
}

/** Compiles the extra reply schemas role files name; one per run, so a schema seen before is not compiled again. */
export interface SchemaCompiler {
  compile(key: string, schema: object): ValidateFunction;
}

/** A compiler of role schemas that may `$ref` the shipped ones, keeping what it compiled by key. */
export function createSchemaCompiler(): SchemaCompiler {
  let ajv: InstanceType<typeof AjvModule.default> | undefined;
  const compiled = new Map<string, ValidateFunction>();
  return {
    compile(key, schema) {
      if (!ajv) {
        // ajv is CommonJS; only a role's own schema needs it at run time.
        const require = createRequire(import.meta.url);
        const { default: Ajv } = require('ajv') as typeof AjvModule;
        const { RE2JS } = require('re2js') as { RE2JS: typeof RE2JSClass };
        // The same options as scripts/compile-schemas.mjs compiles the shipped schemas with, and a
        // linear regular expression engine: a role's schema is the person's, but a `pattern` like
        // `^(\w+\s?)*$` would otherwise hold the supervisor at full CPU, deaf to SIGTERM, on one reply.
        ajv = new Ajv({ allErrors: true, strict: false, code: { regExp: linearRegExp(RE2JS) } });
        for (const name of NAMES) ajv.addSchema(schemaText(name), undefined, undefined, false);
      }
      let fn = compiled.get(key);
      if (!fn) compiled.set(key, (fn = ajv.compile(schema)));
      return fn;
    },
  };
}

// ajv's `code.regExp`: RE2 (re2js, pure JavaScript) matches in time linear in the text, whatever the
// pattern. It has no lookaround and no backreferences: such a pattern is refused when compiled.
function linearRegExp(RE2JS: typeof RE2JSClass) {
  const engine = (pattern: string, flags: string): { test(text: string): boolean; toString(): string } => {
    const re =
      (flags.includes('i') ? RE2JS.CASE_INSENSITIVE : 0) |
      (flags.includes('m') ? RE2JS.MULTILINE : 0) |
      (flags.includes('s') ? RE2JS.DOTALL : 0);
    let compiled: RE2JSClass;
    try {
      compiled = RE2JS.compile(RE2JS.translateRegExp(pattern), re);
    } catch (error) {
      throw new Error(
        `the pattern ${JSON.stringify(pattern)} is not RE2 syntax (${(error as Error).message}; ` +
          `lookaround and backreferences are not supported)`,
        { cause: error },
      );
    }
    // ajv keeps one compiled pattern per toString(): it must name the pattern, not "[object Object]".
    return { test: (text) => compiled.test(text), toString: () => `/${pattern}/${flags}` };
  };
  // What standalone code would import it by; a role's schema is compiled in memory, never to a file.
  return Object.assign(engine, { code: 'require("re2js").RE2JS' });
}

/** Where an ajv error points: an unknown key is found at the key itself, not its parent. */
export function pointerOf(error: { instancePath: string; params: unknown }): string {
  const unknown = (error.params as { additionalProperty?: string }).additionalProperty;
  return unknown === undefined ? error.instancePath : `${error.instancePath}/${unknown}`;
}

/** One `path: message (got value)` line per ajv error, deduplicated. */
export function describeErrors(errors: ErrorObject[] | null | undefined, data: unknown): string[] {
  const lines = new Set<string>();
  for (const error of errors ?? []) {
    if (error.keyword === 'if' || error.keyword === 'allOf') continue;
    lines.add(`${error.instancePath || '/'} ${describeOne(error)}${gotSuffix(error, data)}`);
  }
  return [...lines];
}

function describeOne(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return `is missing the required field "${String(params.missingProperty)}"`;
    case 'additionalProperties':
      return `has an unknown key "${String(params.additionalProperty)}"`;
    case 'enum':
      return `must be one of ${(params.allowedValues as unknown[]).map(String).join(', ')}`;
    case 'type':
      return `must be ${String(params.type)
        .split(',')
        .map((t) => (t === 'null' ? 'null' : /^[aeiou]/.test(t) ? `an ${t}` : `a ${t}`))
        .join(' or ')}`;
    case 'minItems':
      return `must have at least ${String(params.limit)} item(s)`;
    default:
      return error.message ?? 'is invalid';
  }
}

function gotSuffix(error: ErrorObject, data: unknown): string {
  if (error.keyword === 'required' || error.keyword === 'additionalProperties') return '';
  return ` (got ${preview(pointerGet(data, error.instancePath))})`;
}

/** A short, single-line rendering of a value for messages. */
export function preview(value: unknown, max = 60): string {
  let text: string;
  try {
    text = value === undefined ? 'nothing' : (JSON.stringify(value) ?? String(value));
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

/** The reply schema as one flat object, for the Supervisor Log's **Expected:** section. */
export function expectedReply(manager: boolean): object {
  const {
    $schema: _s,
    $id: _i,
    description: _d,
    title: _t,
    ...base
  } = schemaText('reply') as { required: string[]; properties: object } & Record<string, unknown>;
  if (!manager) return base;
  const extra = schemaText('manager-reply') as { required: string[]; properties: object };
  return {
    type: 'object',
    required: [...(base.required as string[]), ...extra.required],
    properties: { ...(base.properties as object), ...extra.properties },
    note:
      'next_task must be one of tasks; every path relative, inside the board folder, ' +
      'an existing task file, listed once',
  };
}
