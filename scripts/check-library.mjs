#!/usr/bin/env node
// The library as a user meets it (docs/library.md): a plain .mjs file in a directory of its own does
// `import { startDevnet } from 'ledger-node'`, waits until the devnet's `rpcUrl` answers `Ledger.ChainHead`
// with a mined tipset, stops it and must then exit by itself (nothing left running); a .ts file importing the
// package type-checks against the declarations the package ships (tsc, strict, NodeNext resolution).
//
//   node scripts/check-library.mjs             this checkout's build (`npm run build:ts` first), linked as
//                                              node_modules/ledger-node in a temporary directory
//   node scripts/check-library.mjs <app dir>   a directory where `npm install ledger-node` ran (test:release)
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const EXIT_TIMEOUT_MS = 240_000;

const USER_SCRIPT = `import { startDevnet } from 'ledger-node';

const started = performance.now();
const devnet = await startDevnet({ blockTime: 1, accounts: 2 });
const chainHead = async () => {
  const response = await fetch(devnet.rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'Ledger.ChainHead', params: [] }),
  });
  return (await response.json()).result;
};
let head = await chainHead();
while (head.Height < 1) {
  await new Promise((resolve) => setTimeout(resolve, 250));
  head = await chainHead();
}
const seconds = ((performance.now() - started) / 1000).toFixed(1);
console.log(\`ChainHead at \${devnet.rpcUrl}: height \${head.Height} after \${seconds} s; \${devnet.accounts.length} accounts, miner \${devnet.miner.address}\`);
await devnet.stop();
console.log('stopped');
`;

const USER_TYPES = `import { createNode, type Devnet, type NodeHandle, startDevnet } from 'ledger-node';

const devnet: Devnet = await startDevnet({ blockTime: 2, accounts: 1, balance: 10n ** 21n, mine: false, port: 0 });
const url: string = devnet.rpcUrl;
const balance: bigint | undefined = devnet.accounts[0]?.balance;
const node: NodeHandle = await createNode({ apiPort: 0, network: 'devnet', p2p: { enabled: false } });
// @ts-expect-error: blockTime is a number of seconds
await startDevnet({ blockTime: '2s' });
await Promise.all([devnet.stop(), node.stop()]);
export { balance, url };
`;

function run(command, args, options) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'inherit'], ...options });
    let stdout = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      process.stdout.write(chunk);
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${args.join(' ')} did not exit within ${EXIT_TIMEOUT_MS / 1000} s (output: ${stdout.trim()})`));
    }, EXIT_TIMEOUT_MS);
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      resolvePromise({ code: code ?? signal, stdout });
    });
  });
}

/** Runs both checks in `app`, whose node_modules holds ledger-node; `env` is the environment the user's script sees. */
export async function checkLibrary(app, env = process.env) {
  const script = join(app, 'check-library.mjs');
  writeFileSync(script, USER_SCRIPT);
  const started = performance.now();
  const { code, stdout } = await run(process.execPath, [script], { cwd: app, env });
  if (code !== 0 || !stdout.includes('stopped')) throw new Error(`the library check exited with ${code}`);
  const seconds = ((performance.now() - started) / 1000).toFixed(1);

  // The typings: checked with this checkout's TypeScript, without @types/node, as the package ships them.
  writeFileSync(join(app, 'check-types.mts'), USER_TYPES);
  writeFileSync(
    join(app, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        lib: ['ES2022'],
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        noEmit: true,
        types: [],
      },
      files: ['check-types.mts'],
    }),
  );
  const tsc = await run(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', app], {
    cwd: app,
  });
  if (tsc.code !== 0) throw new Error(`the package's typings do not check (tsc exit ${tsc.code})`);
  return { seconds };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const given = process.argv[2];
  const app = given === undefined ? mkdtempSync(join(tmpdir(), 'ledger-library-')) : resolve(given);
  try {
    if (given === undefined) {
      if (!existsSync(join(root, 'dist', 'bundle', 'index.js'))) {
        throw new Error('dist/bundle/index.js is missing: run `npm run build:ts` first');
      }
      mkdirSync(join(app, 'node_modules'));
      symlinkSync(root, join(app, 'node_modules', 'ledger-node'), 'dir');
    }
    const { seconds } = await checkLibrary(app);
    console.log(`check:library passed: the devnet started, answered, stopped and the process exited in ${seconds} s`);
  } catch (error) {
    console.error(`check:library failed: ${error.message}`);
    process.exitCode = 1;
  } finally {
    if (given === undefined) rmSync(app, { recursive: true, force: true });
  }
}
