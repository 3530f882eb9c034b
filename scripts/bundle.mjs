// Bundles the compiled CLI (dist/cli/main.js) with its JavaScript dependencies into dist/bundle/,
// which bin/ledger.js runs. Node resolves, reads and compiles ESM files one by one: loading the
// node's ~1,300 modules took ~0.7 s of CPU, which at startup is taken from the first winning PoSt
// (the two share the machine's cores). Code splitting keeps the lazily imported parts (the node
// stack, libp2p, fastify) in chunks that only the commands using them load.
//
// The library entry (dist/index.js: `import { startDevnet } from 'ledger-node'`, docs/library.md) is a
// second entry point of the same build, so it shares the CLI's chunks. Its declarations, compiled by tsc
// beside dist/index.js, are copied with the declaration files they import into dist/bundle/types/: the
// package ships only dist/bundle, so they may import nothing else (checked below).
import { cpSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * `ws` requires its optional native speed-ups inside try/catch and falls back to JavaScript when they
 * are missing (websockets/ws `lib/buffer-util.js`, `lib/validation.js`). The package does not ship them:
 * in the bundle each is a module that throws when loaded, as a missing package would, rather than an
 * import of a package the release would have to depend on.
 */
function absentOptionalAddons(names) {
  const filter = new RegExp(`^(${names.map((name) => name.replace(/[-/]/g, '\\$&')).join('|')})$`);
  return {
    name: 'absent-optional-addons',
    setup(build) {
      build.onResolve({ filter }, (args) => ({ path: args.path, namespace: 'absent' }));
      build.onLoad({ filter: /.*/, namespace: 'absent' }, (args) => ({
        contents: `throw new Error(${JSON.stringify(`${args.path} is not bundled`)});`,
        loader: 'js',
      }));
    },
  };
}
const outdir = join(root, 'dist', 'bundle');
rmSync(outdir, { recursive: true, force: true });
const { metafile } = await build({
  // Named, so the outputs are dist/bundle/main.js (bin/ledger.js runs it) and dist/bundle/index.js.
  entryPoints: {
    main: join(root, 'dist', 'cli', 'main.js'),
    index: join(root, 'dist', 'index.js'),
    // The sealing process's script (src/proofs/seal-process.ts finds it beside the chunk that forks it).
    'seal-worker': join(root, 'dist', 'proofs', 'seal-worker.js'),
    // The EVM worker thread's script (src/vm/evm/interpreter.ts finds it beside the chunk that starts it).
    'evm-worker': join(root, 'dist', 'vm', 'evm', 'evm-worker.js'),
  },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // Native addons and pino (whose transports load files by path) stay in node_modules.
  external: ['better-sqlite3', '@ledger-node/native', 'pino', 'pino-pretty', 'thread-stream'],
  // CommonJS dependencies call require(); an ES module has none of its own.
  banner: {
    js: "import { createRequire as __ledgerRequire } from 'node:module'; const require = __ledgerRequire(import.meta.url);",
  },
  logLevel: 'warning',
  metafile: true,
  plugins: [absentOptionalAddons(['bufferutil', 'utf-8-validate'])],
});
// The packages the bundle loads from node_modules at run time, beside it (not in it): the npm release
// (scripts/release-packages.mjs) depends on exactly these.
const imports = Object.values(metafile.outputs).flatMap((output) => output.imports);
const external = [...new Set(imports.filter((i) => i.external).map((i) => i.path))].sort();
writeFileSync(join(root, 'dist', 'bundle-externals.json'), `${JSON.stringify(external, null, 2)}\n`);

/** Copies `entry` and the declaration files it imports, transitively, from dist/ to dist/bundle/types/. */
function copyDeclarations(entry) {
  const dist = join(root, 'dist');
  const types = join(outdir, 'types');
  const pending = [entry];
  const copied = new Set();
  const builtins = new Set(builtinModules);
  while (pending.length > 0) {
    const file = pending.pop();
    if (copied.has(file)) continue;
    if (!existsSync(file)) throw new Error(`bundle: ${relative(root, file)} is missing (tsc declarations)`);
    copied.add(file);
    cpSync(file, join(types, relative(dist, file)));
    // Comments may quote imports (docs); only code counts.
    const source = readFileSync(file, 'utf8')
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .replace(/^\s*\/\/.*$/gm, '');
    for (const [, spec] of source.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)['"]([^'"]+)['"]/g)) {
      if (spec.startsWith('.')) {
        pending.push(resolve(dirname(file), spec).replace(/\.js$/, '.d.ts'));
      } else if (!spec.startsWith('node:') && !builtins.has(spec)) {
        // A package's types would have to ship as a dependency of ledger-node for the import to resolve.
        throw new Error(
          `bundle: ${relative(root, file)} imports types from '${spec}', which the package does not ship`,
        );
      }
    }
  }
  return copied.size;
}
copyDeclarations(join(root, 'dist', 'index.d.ts'));
