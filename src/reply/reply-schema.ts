import { isObject } from './json.js';
import { schemaText } from '../schemas.js';

// What an agent CLI that enforces a schema itself is handed (SPEC §3): the role's reply schema as
// one plain JSON Schema (draft-07, no $ref: the CLI knows none of ours), and for OpenAI's
// structured outputs (Codex --output-schema) its strict form. The supervisor still checks every
// reply against the schemas themselves (validate.ts); the CLI only gets the format right sooner.

type Schema = Record<string, unknown>;

// Keywords of an object schema that can be merged into the shipped one, with a boolean
// additionalProperties (false closes the merged one); anything else (allOf, oneOf, if/then, $ref…)
// makes the role's schema one no CLI is handed.
const MERGEABLE = new Set('$schema $id title description type properties required'.split(' '));
// What OpenAI's strict mode takes of a schema besides the structure it is given.
const STRICT_KEYWORDS = new Set(
  (
    'type properties required additionalProperties items enum const anyOf description title pattern format ' +
    'minimum maximum exclusiveMinimum exclusiveMaximum multipleOf minItems maxItems'
  ).split(' '),
);

/**
 * The reply schema of a role as one plain object schema: the shipped reply (and Manager) schema,
 * and the role's own extra schema merged in, key by key. A string (why not) when the role's
 * schema is not a plain object schema.
 */
export function cliReplySchema(manager: boolean, extra?: unknown): Schema | string {
  const base = schemaText('reply') as Schema & { properties: Schema; required: string[] };
  const more = manager ? (schemaText('manager-reply') as typeof base) : undefined;
  const properties: Schema = { ...base.properties, ...more?.properties };
  const required = new Set([...base.required, ...(more?.required ?? [])]);
  let closed = false;
  if (extra !== undefined) {
    const other = isObject(extra)
      ? Object.keys(extra).find(
          (key) => !MERGEABLE.has(key) && !(key === 'additionalProperties' && typeof extra[key] === 'boolean'),
        )
      : 'its form';
    if (other !== undefined)
      return `it uses ${other}; only type, properties, required and additionalProperties can be handed on`;
    const own = extra as { properties?: Schema; required?: string[]; additionalProperties?: false };
    if (own.additionalProperties === false) closed = true;
    for (const [key, schema] of Object.entries(own.properties ?? {}))
      properties[key] = isObject(properties[key]) && isObject(schema) ? { ...properties[key], ...schema } : schema;
    for (const key of own.required ?? []) required.add(key);
  }
  return { type: 'object', properties, required: [...required], ...(closed && { additionalProperties: false }) };
}

/**
 * The strict form OpenAI's structured outputs require (Codex `--output-schema`): every object
 * closed (`additionalProperties: false`) with every key required, a key that was optional made
 * nullable, and a string enum typed. A string (why not) when a part cannot be put in that form.
 */
export function strictSchema(schema: Schema, at = ''): Schema | string {
  const unknown = Object.keys(schema).find((key) => !STRICT_KEYWORDS.has(key));
  if (unknown !== undefined) return `${at || '/'} uses ${unknown}, which the strict form does not allow`;
  const strict: Schema = { ...schema };
  if (Array.isArray(schema.enum) && schema.type === undefined && schema.enum.every((v) => typeof v === 'string'))
    strict.type = 'string';
  if (isObject(schema.items)) {
    const items = strictSchema(schema.items, `${at}/items`);
    if (typeof items === 'string') return items;
    strict.items = items;
  }
  if (Array.isArray(schema.anyOf)) {
    const options = schema.anyOf.map((option, i) => (isObject(option) ? strictSchema(option, `${at}/anyOf/${i}`) : ''));
    const bad = options.find((option) => typeof option === 'string');
    if (bad !== undefined) return bad || `${at}/anyOf holds a non-schema`;
    strict.anyOf = options;
  }
  if (schema.type !== 'object') return strict;
  if (
    !isObject(schema.properties) ||
    (schema.additionalProperties !== undefined && schema.additionalProperties !== false)
  )
    return `${at || '/'} is an object whose keys are not all listed`;
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  const properties: Schema = {};
  for (const [key, value] of Object.entries(schema.properties)) {
    const property = isObject(value) ? strictSchema(value, `${at}/${key}`) : `${at}/${key} is not a schema`;
    if (typeof property === 'string') return property;
    properties[key] = required.has(key) || admitsNull(property) ? property : { anyOf: [property, { type: 'null' }] };
  }
  return { ...strict, properties, required: Object.keys(properties), additionalProperties: false };
}

/**
 * A reply given through a strict schema as the plain one reads it: a null that stands for an
 * optional key left out (the strict form made it required) is dropped, at any depth. A null the
 * plain schema itself allows (the Manager's `sub_phase: null`) is kept. Pure; a new object.
 */
export function withoutStrictNulls(value: unknown, schema: unknown): unknown {
  if (Array.isArray(value)) return isObject(schema) ? value.map((v) => withoutStrictNulls(v, schema.items)) : value;
  if (!isObject(value) || !isObject(schema) || !isObject(schema.properties)) return value;
  const properties = schema.properties;
  const required = Array.isArray(schema.required) ? schema.required : [];
  const kept: Schema = {};
  for (const [key, v] of Object.entries(value)) {
    if (v === null && !required.includes(key) && isObject(properties[key]) && !admitsNull(properties[key])) continue;
    kept[key] = withoutStrictNulls(v, properties[key]);
  }
  return kept;
}

function admitsNull(schema: Schema): boolean {
  const type = schema.type;
  return type === 'null' || (Array.isArray(type) && type.includes('null'));
}
