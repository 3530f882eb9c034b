// Writes docs/api.md from the RPC method declarations (`npm run docs:api`).
import { writeFileSync } from 'node:fs';
import { renderApiMarkdown } from '../src/rpc/api-doc.js';
import { allMethods } from '../src/rpc/methods/index.js';

const file = new URL('../docs/api.md', import.meta.url);
writeFileSync(file, renderApiMarkdown(allMethods));
console.log(`wrote ${file.pathname}`);
