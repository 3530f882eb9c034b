// Writes docs/api.md from the RPC method declarations and docs/lotus-v1-methods.json (`npm run docs:api`).
import { readFileSync, writeFileSync } from 'node:fs';
import { type LotusMethodList, renderApiMarkdown } from '../src/rpc/api-doc.js';
import { allMethods } from '../src/rpc/methods/index.js';

const lotus: LotusMethodList = JSON.parse(
  readFileSync(new URL('../docs/lotus-v1-methods.json', import.meta.url), 'utf8'),
);
const file = new URL('../docs/api.md', import.meta.url);
writeFileSync(file, renderApiMarkdown(allMethods, lotus));
console.log(`wrote ${file.pathname}`);
