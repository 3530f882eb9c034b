/**
 * `npm run check:layers`: the module order of src/ as a check. The real tree passes; small trees
 * that break each rule fail, naming the file and the import.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
// @ts-expect-error: a plain .mjs script without type declarations
import { checkLayers } from '../../scripts/check-layers.mjs';

type Result = { files: number; problems: string[] };
const check = checkLayers as (root: string) => Result;

function tree(files: Record<string, string>): Result {
  const root = mkdtempSync(join(tmpdir(), 'layers-'));
  try {
    for (const [path, source] of Object.entries(files)) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), source);
    }
    return check(root);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

test('the project tree follows the module order', () => {
  const { files, problems } = check(resolve('.'));
  expect(problems).toEqual([]);
  expect(files).toBeGreaterThan(200);
});

test('utils importing cli fails, naming the file and the import', () => {
  const { problems } = tree({
    'src/utils/bytes.ts': "import { main } from '../cli/main.js';\nexport const x = main;\n",
    'src/cli/main.ts': 'export const main = 1;\n',
  });
  expect(problems).toEqual([
    "src/utils/bytes.ts: imports '../cli/main.js' — utils/ may not import cli/, which is above it",
  ]);
});

test('type-only and dynamic imports count for the order', () => {
  const { problems } = tree({
    'src/types/a.ts': "import type { B } from '../rpc/b.js';\nexport const a = () => import('../node/c.js');\n",
    'src/rpc/b.ts': 'export type B = number;\n',
    'src/node/c.ts': 'export const c = 1;\n',
  });
  expect(problems).toHaveLength(2);
  expect(problems[0]).toContain('types/ may not import rpc/');
  expect(problems[1]).toContain('types/ may not import node/');
});

test('only db/ imports better-sqlite3; only crypto/ and proofs/ import the native addon', () => {
  const { problems } = tree({
    'src/rpc/a.ts': "import Database from 'better-sqlite3';\nexport const a = Database;\n",
    'src/types/b.ts': "import { blake2b } from '@ledger-node/native';\nexport const b = blake2b;\n",
    'src/db/c.ts': "import Database from 'better-sqlite3';\nexport const c = Database;\n",
    'src/crypto/d.ts': "import { blake2b } from '@ledger-node/native';\nexport const d = blake2b;\n",
  });
  expect(problems).toEqual([
    "src/rpc/a.ts: imports better-sqlite3 ('better-sqlite3'); only db/ may",
    "src/types/b.ts: imports the native addon ('@ledger-node/native'); only crypto/ and proofs/ may",
  ]);
});

test('a run-time import cycle fails; a type-only one does not; commented imports are ignored', () => {
  const { problems } = tree({
    'src/vm/a.ts': "import { b } from './b.js';\nexport const a = b;\n",
    'src/vm/b.ts': "import { a } from './a.js';\nexport const b = 1; export const c = a;\n",
    'src/rpc/c.ts': "import type { D } from './d.js';\nexport type C = D;\n",
    'src/rpc/d.ts':
      "import type { C } from './c.js';\nexport type D = C | number;\n// import { x } from '../cli/x.js';\n",
  });
  expect(problems).toEqual(['import cycle: src/vm/a.ts -> src/vm/b.ts -> src/vm/a.ts']);
});

test('src/index.ts, the package entry, sits above every module; no module imports it', () => {
  const { problems } = tree({
    'src/index.ts': "export { main } from './cli/main.js';\n",
    'src/cli/main.ts': "import { main as again } from '../index.js';\nexport const main = again;\n",
  });
  expect(problems).toContain("src/cli/main.ts: imports '../index.js' — cli/ may not import index/, which is above it");
});
