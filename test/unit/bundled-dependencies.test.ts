import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import type * as Yaml from 'yaml';
// @ts-expect-error: a plain .mjs build script, without types
import { BUNDLED, IMPORT } from '../../scripts/bundle-dependencies.mjs';
import { ROOT } from '../helpers.js';

// npm run build bundles the dependencies every run loads into dist/vendor/ (start-up time).
const DIST = path.join(ROOT, 'dist');
const require = createRequire(import.meta.url);
const compiled = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? (e.name === 'vendor' ? [] : compiled(path.join(dir, e.name))) : e.name.endsWith('.js') ? [path.join(dir, e.name)] : []));

describe('the dependencies bundled at build time', () => {
  it('are what the compiled code imports, never the packages themselves', () => {
    const direct = compiled(DIST).filter((file) => (readFileSync(file, 'utf8').match(IMPORT as RegExp) ?? []).length > 0);
    expect(direct.map((file) => path.relative(DIST, file))).toEqual([]);
    const board = readFileSync(path.join(DIST, 'board', 'yaml.js'), 'utf8');
    expect(board).toContain("from '../vendor/yaml.js'");
    expect(readFileSync(path.join(DIST, 'lock.js'), 'utf8')).toContain("from './vendor/proper-lockfile.js'");
  });

  it.each(BUNDLED as string[])('%s: the bundle exports what importing the package gives', async (name) => {
    const bundle = (await import(pathToFileURL(path.join(DIST, 'vendor', `${name}.js`)).href)) as Record<string, unknown>;
    const pkg = require(name) as Record<string, unknown>;
    expect(Object.keys(bundle).filter((k) => k !== 'default').sort()).toEqual(Object.keys(pkg).sort());
    expect(Object.keys(bundle.default as object).sort()).toEqual(Object.keys(pkg).sort());
  });

  it('yaml: the bundle parses and writes a document as the package does', async () => {
    const bundle = (await import(pathToFileURL(path.join(DIST, 'vendor', 'yaml.js')).href)) as typeof Yaml;
    const pkg = require('yaml') as typeof Yaml;
    const text = '# board\nphase: execute\ncurrent: tasks/a.md # now\ntasks:\n  - tasks/a.md\n  - "tasks/b.md"\nx: &a { y: [1, 2.5, true, null] }\nz: *a\n';
    const [a, b] = [bundle, pkg].map((yaml) => {
      const doc = yaml.parseDocument(text);
      doc.set('current', 'tasks/b.md');
      return { json: doc.toJS() as unknown, text: doc.toString(), errors: yaml.parseDocument('a: [').errors.map((e) => e.message) };
    });
    expect(a).toEqual(b);
  });

  it.each(BUNDLED as string[])("%s: the bundle carries the licence of every package in it", (name) => {
    const head = readFileSync(path.join(DIST, 'vendor', `${name}.js`), 'utf8').split('*/')[0] ?? '';
    const version = (require(`${name}/package.json`) as { version: string }).version;
    expect(head).toContain(`${name}@${version}`);
    if (name === 'proper-lockfile') for (const dep of ['graceful-fs', 'retry', 'signal-exit']) expect(head).toContain(`${dep}@`);
  });
});
