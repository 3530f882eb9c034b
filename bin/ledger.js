#!/usr/bin/env node
// The `ledger` command. The TypeScript sources are compiled to dist/ and bundled into dist/bundle/
// by `npm install` (prepare); see scripts/bundle.mjs.
import { existsSync } from 'node:fs';

const entry = new URL('../dist/bundle/main.js', import.meta.url);
if (!existsSync(entry)) {
  console.error('ledger: dist/ is missing; run `npm install` (or `npm run build:ts`) in the ledger-node checkout.');
  process.exit(1);
}
const { main } = await import(entry.href);
await main(process.argv);
