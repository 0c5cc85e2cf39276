#!/usr/bin/env node
// Compile the shipped JSON Schemas (schemas/*.schema.json) into validator code at build time
// (ajv's standalone code), so that a run neither loads ajv nor compiles a schema at start-up.
// Writes src/generated/validators.ts (git-ignored), which tsc then builds into dist/.
//
// schemas/kanban.schema.json is composed here first: the core's (src/board/kanban.schema.json) with the
// `supervisor:` keys of each capability in run/capability-list.ts (its folder's settings.schema.json),
// in the list's order. It is kept in the repository (editors and docs point at it) and rewritten by
// every build, so removing a capability's line and folder removes its keys.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
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

/** The folders of the capabilities listed in src/run/capability-list.ts, in the list's order. */
export function listedCapabilities() {
  const text = readFileSync(new URL('src/run/capability-list.ts', ROOT), 'utf8');
  const folderOf = new Map(
    [...text.matchAll(/import \{ (\w+) \} from '\.\.\/([\w-]+)\/surface\.js';/g)].map((m) => [m[1], m[2]]),
  );
  const list = /= \[([^\]]*Surface,[^\]]*)\]/.exec(text)?.[1] ?? '';
  const folders = [...list.matchAll(/^\s*(\w+),/gm)]
    .map((m) => folderOf.get(m[1]))
    .filter((folder) => folder !== undefined);
  // A list this cannot read would drop every capability's keys from the schema without a word.
  if (folders.length === 0)
    throw new Error('scripts/compile-schemas.mjs: no capability found in src/run/capability-list.ts');
  return folders;
}

/** The text of schemas/kanban.schema.json: the core's schema with each listed capability's keys. */
export function kanbanSchemaSource() {
  const schema = JSON.parse(readFileSync(new URL('src/board/kanban.schema.json', ROOT), 'utf8'));
  const keys = schema.properties.supervisor.properties;
  for (const folder of listedCapabilities()) {
    const file = new URL(`src/${folder}/settings.schema.json`, ROOT);
    if (!existsSync(file)) continue;
    for (const [key, value] of Object.entries(JSON.parse(readFileSync(file, 'utf8')))) {
      if (Object.hasOwn(keys, key))
        throw new Error(`src/${folder}/settings.schema.json: supervisor.${key} is declared twice`);
      keys[key] = value;
    }
  }
  return `${JSON.stringify(schema, null, 2)}\n`;
}

/** Write schemas/kanban.schema.json (when it changed) and src/generated/validators.ts. */
export function writeValidators() {
  const kanban = new URL('schemas/kanban.schema.json', ROOT);
  const composed = kanbanSchemaSource();
  if (!existsSync(kanban) || readFileSync(kanban, 'utf8') !== composed) writeFileSync(kanban, composed);
  const dir = new URL('src/generated/', ROOT);
  mkdirSync(dir, { recursive: true });
  writeFileSync(new URL('validators.ts', dir), validatorsSource());
}

if (process.argv[1] === fileURLToPath(import.meta.url)) writeValidators();
