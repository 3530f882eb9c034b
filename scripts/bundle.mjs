// Bundles the compiled CLI (dist/cli/main.js) with its JavaScript dependencies into dist/bundle/,
// which bin/ledger.js runs. Node resolves, reads and compiles ESM files one by one: loading the
// node's ~1,300 modules took ~0.7 s of CPU, which at startup is taken from the first winning PoSt
// (the two share the machine's cores). Code splitting keeps the lazily imported parts (the node
// stack, libp2p, fastify) in chunks that only the commands using them load.
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outdir = join(root, 'dist', 'bundle');
rmSync(outdir, { recursive: true, force: true });
await build({
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
});
