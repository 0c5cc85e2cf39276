// `npm run architecture`: the import graph of src/ as dependency-cruiser reads it (type-only
// imports included), drawn the way the house is described in the README: each top-level file
// or folder of src/ is one node. Prints the nodes, the floors (the longest chain of imports
// between nodes), the imports that run back up (inside a circle of nodes), and the circles of
// files; exits 1 when a limit below is broken, so CI keeps the shape.
import { cruise } from 'dependency-cruiser';

const LIMITS = { floors: 10, upward: 2, fileCircles: 0 };

const { output } = await cruise(['src'], { tsPreCompilationDeps: true, tsConfig: { fileName: 'tsconfig.json' }, doNotFollow: { path: 'node_modules' }, exclude: { path: '^src/generated/' } }, {}, {});
const files = output.modules.filter((m) => m.source.startsWith('src/') && !m.source.startsWith('src/generated/'));
const edges = files.flatMap((m) => m.dependencies.filter((d) => d.resolved.startsWith('src/') && !d.resolved.startsWith('src/generated/')).map((d) => [m.source, d.resolved]));
const nodeOf = (file) => file.split('/').slice(0, 2).join('/');

const fileCircles = stronglyConnected(new Set(files.map((m) => m.source)), edges).filter((group) => group.length > 1);
const nodes = new Set(files.map((m) => nodeOf(m.source)));
const nodeEdges = uniquePairs(edges.map(([a, b]) => [nodeOf(a), nodeOf(b)]).filter(([a, b]) => a !== b));
const nodeCircles = stronglyConnected(nodes, nodeEdges);
const groupOf = new Map(nodeCircles.flatMap((group, i) => group.map((node) => [node, i])));
// An import between two nodes of one circle runs back up from one of them: count the fewer way round.
const upward = nodeCircles.filter((g) => g.length > 1).reduce((sum, group) => sum + Math.ceil(nodeEdges.filter(([a, b]) => group.includes(a) && group.includes(b)).length / 2), 0);
const floors = longestChain(nodeCircles.length, nodeEdges.map(([a, b]) => [groupOf.get(a), groupOf.get(b)]).filter(([a, b]) => a !== b));

console.log(`src/: ${files.length} files in ${nodes.size} nodes (top-level files and folders), ${nodeEdges.length} imports between nodes`);
console.log(`floors: ${floors} (limit ${LIMITS.floors}) · imports against the layering: ${upward} (limit ${LIMITS.upward}) · circles of files: ${fileCircles.length} (limit ${LIMITS.fileCircles})`);
for (const group of fileCircles) console.log(`  circle: ${group.join(' -> ')}`);
for (const group of nodeCircles.filter((g) => g.length > 1)) console.log(`  nodes importing each other: ${group.join(', ')}`);
if (floors > LIMITS.floors || upward > LIMITS.upward || fileCircles.length > LIMITS.fileCircles) process.exitCode = 1;

function uniquePairs(pairs) {
  return [...new Map(pairs.map((p) => [p.join('\0'), p])).values()];
}

// Tarjan's strongly connected components, iteratively (no recursion limit on a long chain).
function stronglyConnected(vertices, pairs) {
  const next = new Map([...vertices].map((v) => [v, []]));
  for (const [a, b] of pairs) if (next.has(a) && next.has(b)) next.get(a).push(b);
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const groups = [];
  for (const root of vertices) {
    if (index.has(root)) continue;
    const work = [[root, 0]];
    while (work.length) {
      const frame = work[work.length - 1];
      const [v, i] = frame;
      if (i === 0) {
        index.set(v, index.size);
        low.set(v, index.get(v));
        stack.push(v);
        onStack.add(v);
      }
      const out = next.get(v);
      if (i < out.length) {
        frame[1]++;
        const w = out[i];
        if (!index.has(w)) work.push([w, 0]);
        else if (onStack.has(w)) low.set(v, Math.min(low.get(v), index.get(w)));
        continue;
      }
      work.pop();
      if (work.length) low.set(work[work.length - 1][0], Math.min(low.get(work[work.length - 1][0]), low.get(v)));
      if (low.get(v) === index.get(v)) {
        const group = [];
        let w;
        do {
          w = stack.pop();
          onStack.delete(w);
          group.push(w);
        } while (w !== v);
        groups.push(group.sort());
      }
    }
  }
  return groups;
}

// The number of nodes on the longest chain of imports in an acyclic graph of `count` vertices.
function longestChain(count, pairs) {
  const depth = new Map();
  const out = Array.from({ length: count }, () => []);
  for (const [a, b] of pairs) out[a].push(b);
  const visit = (v) => {
    if (depth.has(v)) return depth.get(v);
    depth.set(v, 1); // acyclic: never read before it is set below
    const d = 1 + Math.max(0, ...out[v].map(visit));
    depth.set(v, d);
    return d;
  };
  return Math.max(0, ...out.map((_, v) => visit(v)));
}
