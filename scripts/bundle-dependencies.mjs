#!/usr/bin/env node
// Bundle the dependencies that every run loads into one file each, dist/vendor/<name>.js, and
// point the compiled code (tsc's output in dist/) at them. Run after tsc, by npm run build.
//
// Why: yaml is 73 CommonJS files and proper-lockfile with graceful-fs, retry and signal-exit 14
// more; loaded file by file they were the largest part of a run's start-up (bench/README.md).
// The bundles hold the packages' own code, unchanged (their Node builds, as `require` would load
// them); only how it is loaded changes. The sources and the tests still import the packages.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'rolldown';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const DIST = path.join(ROOT, 'dist');
const VENDOR = path.join(DIST, 'vendor');
const require = createRequire(import.meta.url);

/** The packages bundled into dist/vendor/. */
export const BUNDLED = ['yaml', 'proper-lockfile'];

/** Where compiled code imports one of them: `from 'x'`, `import 'x'` or `import('x')`. */
export const IMPORT = new RegExp(`(\\bfrom\\s*|\\bimport\\s*\\(?\\s*)(['"])(${BUNDLED.join('|')})\\2`, 'g');

// Both are CommonJS: the bundle exports what `import` of the package gives, module.exports as
// the default export and each of its properties as a named one.
function entry(name) {
  const names = Object.keys(require(name)).filter((key) => key !== 'default' && /^[A-Za-z_$][\w$]*$/.test(key));
  return `import pkg from ${JSON.stringify(name)};\nexport const { ${names.join(', ')} } = pkg;\nexport default pkg;\n`;
}

// The licence of every package whose code went into a bundle, kept at its top.
function banner(moduleIds) {
  const packages = new Map();
  for (const id of moduleIds) {
    const match = /^(.*[\\/]node_modules[\\/](?:@[^\\/]+[\\/])?[^\\/]+)[\\/]/.exec(id);
    if (match) packages.set(match[1], true);
  }
  const notices = [...packages.keys()].sort().map((dir) => {
    const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'));
    const file = readdirSync(dir).find((f) => /^licen[cs]e/i.test(f));
    const text = file ? readFileSync(path.join(dir, file), 'utf8').trim() : `${pkg.license} License`;
    return `${pkg.name}@${pkg.version} (${pkg.license}):\n\n${text}`;
  });
  return `/*!\n * Bundled by scripts/bundle-dependencies.mjs from:\n *\n${notices.join('\n\n').replace(/\*\//g, '* /').split('\n').map((line) => ` * ${line}`.trimEnd()).join('\n')}\n */`;
}

async function bundle(name) {
  const id = `\0vendor:${name}`;
  const options = {
    input: id,
    cwd: ROOT,
    platform: 'node',
    external: [/^node:/],
    plugins: [{ name: 'vendor-entry', resolveId: (source) => (source === id ? id : null), load: (source) => (source === id ? entry(name) : null) }],
  };
  // Written once to learn which packages went in (for the licences), then with them on top.
  const { output } = await build({ ...options, write: false, output: { format: 'esm' } });
  const ids = output.flatMap((chunk) => chunk.moduleIds ?? []);
  await build({ ...options, output: { file: path.join(VENDOR, `${name}.js`), format: 'esm', banner: banner(ids), codeSplitting: false } });
}

function compiledFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return file === VENDOR ? [] : compiledFiles(file);
    return entry.name.endsWith('.js') ? [file] : [];
  });
}

/** Point every compiled import of a bundled package at its bundle; returns the files changed. */
export function redirectImports() {
  const changed = [];
  for (const file of compiledFiles(DIST)) {
    const text = readFileSync(file, 'utf8');
    const relative = (name) => {
      const target = path.relative(path.dirname(file), path.join(VENDOR, `${name}.js`)).split(path.sep).join('/');
      return target.startsWith('.') ? target : `./${target}`;
    };
    const next = text.replace(IMPORT, (_all, lead, quote, name) => `${lead}${quote}${relative(name)}${quote}`);
    if (next !== text) {
      writeFileSync(file, next);
      changed.push(path.relative(DIST, file));
    }
  }
  return changed;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const name of BUNDLED) await bundle(name);
  redirectImports();
}
