// Code figures of src/ (src/generated/ aside): lines, the largest file, files over 200 lines,
// module-level mutable state, and repeated code added since a base commit. The same figures
// are taken of the base commit's src/ (through git, no checkout) to compare.
//   node bench/code-figures.mjs [--base a7b143d] [--json FILE]   (the figures also as JSON, to FILE)
// Module-level mutable state is found with the TypeScript parser: at the top level of a file
// (outside every function and class body), a `let` or `var`, or a `const` holding a mutable
// container (new Map/Set/WeakMap/WeakSet/Array, an array or object literal not `as const` or
// frozen, a Buffer), said "written" when the file changes it after load (an assignment to
// one of its members, or a call of a mutating method such as set, push, add, delete), else
// "table" (only ever read); and a class's static field that is not readonly.
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import ts from 'typescript';

const LIMIT = 200;
const MUTATORS = new Set(['set', 'add', 'delete', 'clear', 'push', 'pop', 'shift', 'unshift', 'splice', 'sort', 'reverse', 'fill', 'copyWithin', 'write', 'writeUInt8', 'copy']);
const CONTAINERS = new Set(['Map', 'Set', 'WeakMap', 'WeakSet', 'Array', 'WeakRef']);

/** Print and return the code figures of `root` (a checkout) and of `base` in its history. */
export async function codeFigures(root, { base = 'a7b143d', print = true } = {}) {
  const now = figures(filesNow(root));
  const before = figures(filesAt(root, base));
  const dup = duplicates(root, base);
  if (print) report(now, before, base, dup);
  return { base, now, before, duplicates: dup };
}

function filesNow(root) {
  const src = path.join(root, 'src');
  const out = [];
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      const rel = path.relative(root, full).split(path.sep).join('/');
      if (entry.isDirectory()) {
        if (rel !== 'src/generated') walk(full);
      } else if (entry.name.endsWith('.ts')) out.push({ file: rel, text: readFileSync(full, 'utf8') });
    }
  };
  walk(src);
  return out;
}

function filesAt(root, rev) {
  const names = execFileSync('git', ['-C', root, 'ls-tree', '-r', '--name-only', rev, 'src/'], { encoding: 'utf8' })
    .split('\n')
    .filter((name) => name.endsWith('.ts') && !name.startsWith('src/generated/'));
  return names.map((file) => ({ file, text: execFileSync('git', ['-C', root, 'show', `${rev}:${file}`], { encoding: 'utf8', maxBuffer: 64 * 1024 ** 2 }) }));
}

function figures(files) {
  const sized = files.map(({ file, text }) => ({ file, lines: lineCount(text) })).sort((a, b) => b.lines - a.lines);
  return {
    files: files.length,
    lines: sized.reduce((sum, f) => sum + f.lines, 0),
    largest: sized[0],
    overLimit: sized.filter((f) => f.lines > LIMIT),
    state: files.flatMap(({ file, text }) => moduleState(file, text)),
  };
}

function lineCount(text) {
  return text.length === 0 ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

/** The module-level mutable state of one file (see the comment at the top). */
export function moduleState(file, text) {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found = [];
  const line = (node) => source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
  for (const statement of source.statements) {
    if (ts.isVariableStatement(statement)) {
      const flags = statement.declarationList.flags;
      const kind = flags & ts.NodeFlags.Let ? 'let' : flags & ts.NodeFlags.Const ? 'const' : 'var';
      for (const decl of statement.declarationList.declarations) {
        const name = decl.name.getText(source);
        if (kind !== 'const') {
          found.push({ file, line: line(decl), name, what: kind, written: true });
          continue;
        }
        const container = mutableContainer(decl.initializer, source);
        if (container) found.push({ file, line: line(decl), name, what: container, written: ts.isIdentifier(decl.name) && writtenAfterLoad(source, decl.name.text) });
      }
    } else if (ts.isClassDeclaration(statement)) {
      for (const member of statement.members) {
        const mods = ts.canHaveModifiers(member) ? (ts.getModifiers(member) ?? []) : [];
        const isStatic = mods.some((m) => m.kind === ts.SyntaxKind.StaticKeyword);
        const readonly = mods.some((m) => m.kind === ts.SyntaxKind.ReadonlyKeyword);
        if (ts.isPropertyDeclaration(member) && isStatic && !readonly) found.push({ file, line: line(member), name: `${statement.name?.text ?? 'class'}.${member.name.getText(source)}`, what: 'static field', written: true });
      }
    }
  }
  return found;
}

function mutableContainer(init, source) {
  if (!init) return undefined;
  let node = init;
  for (;;) {
    if (ts.isAsExpression(node) || ts.isSatisfiesExpression?.(node)) {
      if (ts.isAsExpression(node) && node.type.getText(source) === 'const') return undefined;
      node = node.expression;
    } else if (ts.isParenthesizedExpression(node)) node = node.expression;
    else break;
  }
  if (ts.isNewExpression(node) && ts.isIdentifier(node.expression) && CONTAINERS.has(node.expression.text)) return `new ${node.expression.text}`;
  if (ts.isArrayLiteralExpression(node)) return 'array';
  if (ts.isObjectLiteralExpression(node)) return 'object';
  if (ts.isCallExpression(node)) {
    const callee = node.expression.getText(source);
    if (callee === 'Object.freeze') return undefined;
    if (/^Buffer\.(from|alloc|allocUnsafe|concat)$/.test(callee)) return 'Buffer';
  }
  return undefined;
}

// Whether the file changes `name`'s contents anywhere: `name.x = …`, `name[i] = …`,
// `name.set(…)` and other mutating calls, `delete name.x`, `Object.assign(name, …)`.
function writtenAfterLoad(source, name) {
  let written = false;
  const isName = (node) => ts.isIdentifier(node) && node.text === name;
  const visit = (node) => {
    if (written) return;
    if (ts.isBinaryExpression(node) && node.operatorToken.kind >= ts.SyntaxKind.FirstAssignment && node.operatorToken.kind <= ts.SyntaxKind.LastAssignment) {
      const left = node.left;
      if ((ts.isPropertyAccessExpression(left) || ts.isElementAccessExpression(left)) && isName(left.expression)) written = true;
    }
    if ((ts.isPrefixUnaryExpression(node) || ts.isPostfixUnaryExpression(node)) && (ts.isPropertyAccessExpression(node.operand) || ts.isElementAccessExpression(node.operand)) && isName(node.operand.expression)) written = true;
    if (ts.isDeleteExpression(node) && (ts.isPropertyAccessExpression(node.expression) || ts.isElementAccessExpression(node.expression)) && isName(node.expression.expression)) written = true;
    if (ts.isCallExpression(node)) {
      const callee = node.expression;
      if (ts.isPropertyAccessExpression(callee) && isName(callee.expression) && MUTATORS.has(callee.name.text)) written = true;
      if (callee.getText(source) === 'Object.assign' && node.arguments[0] && isName(node.arguments[0])) written = true;
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return written;
}

// `duplicates --change --base <base>` over the checkout, where the command is installed.
function duplicates(root, base) {
  try {
    const text = execFileSync('duplicates', ['--change', '--base', base, '--most', '40'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 120_000 });
    return { available: true, text: text.trim() };
  } catch (error) {
    if (error.code === 'ENOENT') return { available: false, text: '' };
    return { available: true, text: `${String(error.stdout ?? '').trim()}\n(duplicates failed: ${error.message.split('\n')[0]})`.trim() };
  }
}

function report(now, before, base, dup) {
  const row = (label, a, b) => console.log(`   ${label.padEnd(38)} ${String(a).padStart(22)}   ${String(b).padStart(22)}`);
  console.log(`Code figures: src/ without src/generated/, this checkout against ${base}`);
  row('', 'now', base);
  row('files', now.files, before.files);
  row('lines', now.lines.toLocaleString('en'), before.lines.toLocaleString('en'));
  row('largest file', `${now.largest.file.replace(/^src\//, '')} ${now.largest.lines}`, `${before.largest.file.replace(/^src\//, '')} ${before.largest.lines}`);
  row(`files over ${LIMIT} lines`, now.overLimit.length, before.overLimit.length);
  const written = (f) => f.state.filter((s) => s.written);
  row('module-level state written after load', written(now).length, written(before).length);
  row('module-level containers only read', now.state.length - written(now).length, before.state.length - written(before).length);
  for (const f of now.overLimit) console.log(`     over ${LIMIT}: ${f.file} (${f.lines} lines)`);
  for (const s of now.state.filter((x) => x.written)) console.log(`     state: ${s.file}:${s.line} ${s.name} (${s.what}, written after load)`);
  const tables = now.state.filter((x) => !x.written).map((x) => `${x.file.replace(/^src\//, '')}:${x.line} ${x.name} (${x.what})`);
  if (tables.length) console.log(`     only read (mutable containers, not frozen, never changed after load):\n${wrap(tables, 92).replace(/^/gm, '       ')}`);
  if (!dup.available) console.log(`   repeated code: the duplicates command is not installed here (duplicates --change --base ${base})`);
  else console.log(`   repeated code added since ${base} (duplicates --change --base ${base}):\n${dup.text.replace(/^/gm, '     ')}`);
  console.log('');
}

// Items joined with commas, lines broken between items only.
function wrap(items, width) {
  const lines = [''];
  for (const [i, item] of items.entries()) {
    const piece = `${item}${i < items.length - 1 ? ',' : ''}`;
    if (lines.at(-1).length + piece.length + 1 > width && lines.at(-1) !== '') lines.push('');
    lines[lines.length - 1] += `${lines.at(-1) === '' ? '' : ' '}${piece}`;
  }
  return lines.join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values } = parseArgs({ options: { base: { type: 'string' }, json: { type: 'string' } } });
  const root = fileURLToPath(new URL('..', import.meta.url));
  const result = await codeFigures(root, values.base ? { base: values.base } : {});
  if (values.json) writeFileSync(values.json, `${JSON.stringify(result, null, 2)}\n`);
}
