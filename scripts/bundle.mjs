// Bundles the compiled CLI (dist/cli/main.js) with its JavaScript dependencies into dist/bundle/,
// which bin/ledger.js runs. Node resolves, reads and compiles ESM files one by one: loading the
// node's ~1,300 modules took ~0.7 s of CPU, which at startup is taken from the first winning PoSt
// (the two share the machine's cores). Code splitting keeps the lazily imported parts (the node
// stack, libp2p, fastify) in chunks that only the commands using them load.
import { rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outdir = join(root, 'dist', 'bundle');
rmSync(outdir, { recursive: true, force: true });
const { metafile } = await build({
  entryPoints: [join(root, 'dist', 'cli', 'main.js')],
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
});
// The packages the bundle loads from node_modules at run time, beside it (not in it): the npm release
// (scripts/release-packages.mjs) depends on exactly these.
const imports = Object.values(metafile.outputs).flatMap((output) => output.imports);
const external = [...new Set(imports.filter((i) => i.external).map((i) => i.path))].sort();
writeFileSync(join(root, 'dist', 'bundle-externals.json'), `${JSON.stringify(external, null, 2)}\n`);
