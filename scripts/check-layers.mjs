#!/usr/bin/env node
// The module order of src/ as a check (docs/architecture.md, "The floors"): a module imports only itself and the
// modules listed before it, only db/ imports better-sqlite3, only crypto/ and proofs/ import the native addon,
// and no files import each other in a cycle at run time (type-only imports are erased, so they may). Prints each offending file and import; exits 1 on any.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Lowest first: a module may import the ones before it. */
export const LAYERS = [
  'utils',
  'params',
  'crypto',
  'types',
  'proofs',
  'ipld',
  'db',
  'state',
  'vm',
  'chain',
  'beacon',
  'consensus',
  'mpool',
  'net',
  'sync',
  'miner',
  'wallet',
  'rpc',
  'metrics',
  'node',
  'cli',
  // src/index.ts, the package's entry point (`import … from 'ledger-node'`): above every module, as the CLI.
  'index',
];

/** Packages only some modules may import, and the native addon's own folder. */
const RESTRICTED = [
  { name: 'better-sqlite3', test: (spec) => spec === 'better-sqlite3', allowed: ['db'] },
  {
    name: 'the native addon',
    test: (spec, target) => spec === '@ledger-node/native' || target?.startsWith(`native${sep}`),
    allowed: ['crypto', 'proofs'],
  },
];

// import … from 'x', export … from 'x', import 'x', import('x'); comments are removed first.
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(?\s*)(['"])([^'"\n]+)\1/g;

// `import type … from 'x'` / `export type … from 'x'`: no run-time dependency.
const TYPE_ONLY = /\b(?:import|export)\s+type\s[^;]*?\bfrom\s*(['"])([^'"\n]+)\1/g;

function stripComments(source) {
  return source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');
}

function sourceFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** `src/<layer>/…` → layer; `src/index.ts` is the entry layer; any other file directly in src/ has no layer. */
function layerOf(root, file) {
  const parts = relative(join(root, 'src'), file).split(sep);
  if (parts.length > 1) return parts[0];
  return parts[0] === 'index.ts' ? 'index' : undefined;
}

export function checkLayers(root) {
  const srcDir = join(root, 'src');
  const files = sourceFiles(srcDir);
  const known = new Set(files);
  const problems = [];
  const edges = new Map();
  for (const file of files) {
    const layer = layerOf(root, file);
    const rank = LAYERS.indexOf(layer);
    const where = relative(root, file);
    if (rank < 0) problems.push(`${where}: module '${layer}' is not in the layer list (scripts/check-layers.mjs)`);
    const targets = [];
    const source = stripComments(readFileSync(file, 'utf8'));
    const typeOnly = new Set([...source.matchAll(TYPE_ONLY)].map((match) => match.index + match[0].length));
    for (const match of source.matchAll(SPECIFIER)) {
      const spec = match[2];
      const isRelative = spec.startsWith('.');
      const target = isRelative ? resolve(dirname(file), spec).replace(/\.js$/, '.ts') : undefined;
      const targetFromRoot = target === undefined ? undefined : relative(root, target);
      for (const rule of RESTRICTED) {
        if (rule.test(spec, targetFromRoot) && !rule.allowed.includes(layer)) {
          problems.push(
            `${where}: imports ${rule.name} ('${spec}'); only ${rule.allowed.map((name) => `${name}/`).join(' and ')} may`,
          );
        }
      }
      if (target === undefined || !target.startsWith(srcDir + sep)) continue;
      if (known.has(target) && !typeOnly.has(match.index + match[0].length)) targets.push(target);
      const targetLayer = layerOf(root, target);
      const targetRank = LAYERS.indexOf(targetLayer);
      if (rank >= 0 && targetRank > rank) {
        problems.push(`${where}: imports '${spec}' — ${layer}/ may not import ${targetLayer}/, which is above it`);
      }
    }
    edges.set(file, targets);
  }
  for (const cycle of findCycles(edges)) {
    problems.push(`import cycle: ${cycle.map((file) => relative(root, file)).join(' -> ')}`);
  }
  return { files: files.length, problems };
}

/** Tarjan's strongly connected components; each component of more than one file is a cycle. */
function findCycles(edges) {
  const index = new Map();
  const low = new Map();
  const onStack = new Set();
  const stack = [];
  const cycles = [];
  let counter = 0;
  const visit = (file) => {
    index.set(file, counter);
    low.set(file, counter);
    counter++;
    stack.push(file);
    onStack.add(file);
    for (const next of edges.get(file) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file), low.get(next)));
      } else if (onStack.has(next)) {
        low.set(file, Math.min(low.get(file), index.get(next)));
      }
    }
    if (low.get(file) === index.get(file)) {
      const component = [];
      let member;
      do {
        member = stack.pop();
        onStack.delete(member);
        component.push(member);
      } while (member !== file);
      if (component.length > 1) cycles.push([...component.reverse(), component[0]]);
    }
  };
  for (const file of edges.keys()) if (!index.has(file)) visit(file);
  return cycles;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = resolve(process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), '..'));
  const { files, problems } = checkLayers(root);
  for (const problem of problems) console.error(problem);
  if (problems.length > 0) {
    console.error(`check:layers: ${problems.length} problem(s) in ${files} files`);
    process.exit(1);
  }
  console.log(`check:layers: ${files} files follow the module order (${LAYERS.join(' < ')})`);
}
