import { readFileSync } from 'node:fs';
import path from 'node:path';
import AjvModule from 'ajv';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers.js';

const Ajv = AjvModule.default;

// The supervisor compiles its own schemas without checking them against the meta-schema.
describe('the shipped JSON Schemas', () => {
  it.each(['kanban', 'role', 'reply', 'manager-reply'])('%s.schema.json is a valid draft-07 schema', (name) => {
    const schema = JSON.parse(readFileSync(path.join(ROOT, 'schemas', `${name}.schema.json`), 'utf8')) as object;
    const ajv = new Ajv({ allErrors: true, strict: false });
    expect(ajv.validateSchema(schema), JSON.stringify(ajv.errors)).toBe(true);
  });
});
