#!/usr/bin/env node
// Compile the shipped JSON Schemas (schemas/*.schema.json) into validator code at build time
// (ajv's standalone code), so that a run neither loads ajv nor compiles a schema at start-up.
// Writes src/generated/validators.ts (git-ignored), which tsc then builds into dist/.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const ROOT = new URL('../', import.meta.url);

/** The shipped schemas, by the name of the export each one's validator gets. */
export const SCHEMAS = { kanban: 'kanban', role: 'role', reply: 'reply', managerReply: 'manager-reply' };

/** The same options as src/schemas.ts gives the ajv it compiles a role's own schema with. */
export const AJV_OPTIONS = { allErrors: true, strict: false };

/** The text of src/generated/validators.ts for the schemas as they are now. */
export function validatorsSource() {
  const Ajv = require('ajv').default;
  const standaloneCode = require('ajv/dist/standalone').default;
  const ajv = new Ajv({ ...AJV_OPTIONS, code: { source: true, esm: true, lines: true } });
  const ids = {};
  for (const [exported, name] of Object.entries(SCHEMAS)) {
    const schema = JSON.parse(readFileSync(new URL(`schemas/${name}.schema.json`, ROOT), 'utf8'));
    // Not checked against the meta-schema here either; test/unit/schemas.test.ts does that.
    ajv.addSchema(schema, undefined, undefined, false);
    ids[exported] = schema.$id;
  }
  const code = standaloneCode(ajv, ids).replace(/^"use strict";\n?/, '');
  return [
    '// @ts-nocheck',
    '// Generated from schemas/*.schema.json by scripts/compile-schemas.mjs (npm run build). Do not edit.',
    // The code may `require` ajv's runtime helpers (ucs2length for minLength): one small file each.
    "import { createRequire } from 'node:module';",
    'const require = createRequire(import.meta.url);',
    code,
  ].join('\n');
}

/** Write src/generated/validators.ts. */
export function writeValidators() {
  const dir = new URL('src/generated/', ROOT);
  mkdirSync(dir, { recursive: true });
  writeFileSync(new URL('validators.ts', dir), validatorsSource());
}

if (process.argv[1] === fileURLToPath(import.meta.url)) writeValidators();
