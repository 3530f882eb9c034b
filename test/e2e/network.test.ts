/**
 * A network that is not a devnet, end to end: `ledger network create` builds it from a Lotus-style
 * template with two miners pre-sealed (real sectors, keys, genesis CAR, definition). Three nodes
 * join it with its definition on 127.0.0.1 (ports 0): A through the real CLI (`ledger daemon
 * --network <file> --miner <dir>`, a child process), B in-process running the other miner, C a
 * follower. Both miners produce blocks. Then a fourth node joins from a minimal snapshot exported by
 * B, imported with nothing but the definition, follows the head, and `ledger sync wait` prints Done!.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { buildProgram } from '../../src/cli/main.js';
import { importSnapshotIntoRepo } from '../../src/cli/snapshot-import.js';
import { secp256k1 } from '../../src/crypto/index.js';
import { LedgerNode } from '../../src/node/index.js';
import { readNetworkDefinitionFile } from '../../src/node/network-definition.js';
import { RpcClient, rpcUrl } from '../../src/rpc/index.js';
import { Address, setDefaultNetwork, type TipSetJson } from '../../src/types/index.js';
import { withCliOutput } from '../helpers/cli-in-process.js';
import { LEDGER_BIN } from '../helpers/ledger-cli.js';

// Two miners prove in every epoch on this 2-core machine, each winning PoSt taking seconds to tens of seconds
// when the machine is busy: a block time they both fit in, so their blocks share tipsets instead of forking.
const BLOCK_TIME_SECS = Number(process.env.LEDGER_E2E_BLOCK_TIME_MS ?? 60_000) / 1000;
const TIMEOUT_MS = 20 * 60_000;
const logger = () => pino({ level: process.env.LEDGER_TEST_LOG ?? 'silent' });

const dirs: string[] = [];
const nodes: LedgerNode[] = [];
let daemon: ChildProcess | undefined;

function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

async function until<T>(what: string, check: () => Promise<T | undefined> | T | undefined): Promise<T> {
  const deadline = Date.now() + TIMEOUT_MS / 2;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

afterAll(async () => {
  for (const node of nodes.reverse()) await node.stop().catch(() => undefined);
  if (daemon !== undefined && daemon.exitCode === null) {
    const exited = new Promise((resolve) => daemon!.once('exit', resolve));
    daemon.kill('SIGINT');
    // A proof in flight may hold the stop up: a while, then no more waiting.
    const force = setTimeout(() => daemon!.kill('SIGKILL'), 30_000);
    await exited;
    clearTimeout(force);
  }
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  setDefaultNetwork('f');
});

test(
  'a network made by `ledger network create`: 3 nodes, 2 miners mining, a 4th joining from a snapshot',
  async () => {
    // 1. The network: two miners with two pre-sealed 2 KiB sectors each, and a funded account.
    const out = join(tempDir('ledger-network-'), 'net');
    const template = join(out, '..', 'template.json');
    writeFileSync(
      template,
      JSON.stringify({
        NetworkName: 'e2e-net',
        Accounts: [
          {
            Type: 'account',
            Balance: '1000000000000000000000',
            Meta: { Owner: Address.newSecp256k1(secp256k1.publicKey(randomBytes(32))).toString('t') },
          },
        ],
        Miners: [
          { ID: 't01000', Sectors: 2 },
          { ID: 't01001', Sectors: 2 },
        ],
      }),
    );
    const printed = await withCliOutput('', async (writes) => {
      await buildProgram().parseAsync(
        ['network', 'create', template, '--out', out, '--block-time', String(BLOCK_TIME_SECS)],
        { from: 'user' },
      );
      return writes.join('');
    });
    expect(printed).toMatch(/^network e2e-net\ngenesis bafy\w+ {2}\(\d+ s epochs\)\n/);
    const definitionFile = join(out, 'network.json');
    const definition = readNetworkDefinitionFile(definitionFile);
    expect(definition.name).toBe('e2e-net');
    for (const miner of ['t01000', 't01001']) {
      expect(existsSync(join(out, 'miners', miner, `pre-seal-${miner}.key`))).toBe(true);
    }

    // 2. Node A through the CLI: `ledger daemon --network <file> --miner <dir>`.
    const repoA = tempDir('ledger-net-a-');
    daemon = spawn(
      process.execPath,
      [
        LEDGER_BIN,
        '--repo',
        repoA,
        'daemon',
        '--network',
        definitionFile,
        '--miner',
        join(out, 'miners', 't01000'),
        '--api',
        '0',
      ],
      { env: { ...process.env, LEDGER_API_INFO: '' }, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let daemonLog = '';
    daemon.stderr?.on('data', (chunk) => {
      daemonLog += chunk;
    });
    const apiA = await until('node A to serve its API', () => {
      if (daemon?.exitCode !== null) throw new Error(`ledger daemon exited: ${daemonLog}`);
      const api = join(repoA, 'api');
      const token = join(repoA, 'token');
      return existsSync(api) && existsSync(token)
        ? { url: rpcUrl(readFileSync(api, 'utf8').trim(), 1), token: readFileSync(token, 'utf8').trim() }
        : undefined;
    });
    const clientA = new RpcClient(apiA);
    const addrsA = (await clientA.request('Ledger.NetAddrsListen', [])) as { ID: string; Addrs: string[] };
    const bootstrap = addrsA.Addrs.map((addr) => `${addr}/p2p/${addrsA.ID}`);

    // 3. Nodes B (the other miner) and C (a follower), in-process with the definition.
    const start = (miners: string[] = []) =>
      LedgerNode.start({
        repoPath: tempDir('ledger-net-node-'),
        logger: logger(),
        overrides: { apiPort: 0 },
        network: definition,
        miners,
        p2p: { bootstrap },
      });
    const b = await start([join(out, 'miners', 't01001')]);
    nodes.push(b);
    const c = await start();
    nodes.push(c);

    // Both miners produce blocks on the chain every node follows.
    const minersOnChain = () => {
      const seen = new Set<string>();
      const chain = c.chain!.chain;
      for (let ts = chain.head(); ts.height > 0n; ts = chain.loadTipSet(ts.parents)) {
        for (const block of ts.blocks) seen.add(block.miner.toString());
      }
      return seen.has('t01000') && seen.has('t01001') ? seen : undefined;
    };
    await until('blocks of both miners on node C', minersOnChain);

    // 4. A fourth node joins from B's minimal snapshot, with only the definition.
    const headB = b.chain!.chain.head();
    const snapshot = join(out, '..', 'minimal.car');
    const clientB = new RpcClient({ url: rpcUrl(b.apiAddress, 1), token: b.repo.readToken()! });
    await clientB.request('Ledger.ChainExportToFile', [snapshot, 2, true, null]);
    const repoD = tempDir('ledger-net-d-');
    const summary = await importSnapshotIntoRepo({
      repoPath: repoD,
      file: snapshot,
      mode: 'snapshot',
      network: definition,
    });
    expect(summary.head.height).toBeGreaterThanOrEqual(headB.height);
    const d = await LedgerNode.start({
      repoPath: repoD,
      logger: logger(),
      overrides: { apiPort: 0 },
      p2p: { bootstrap },
    });
    nodes.push(d);
    const joinedAt = b.chain!.chain.head().height;
    await until('node D to follow the head', () => (d.chain!.chain.head().height > joinedAt ? true : undefined));
    const waited = await withCliOutput(`${d.repo.readToken()}:${d.apiAddress}`, async (writes) => {
      await buildProgram().parseAsync(['sync', 'wait'], { from: 'user' });
      return writes.join('');
    });
    expect(waited).toMatch(/Done!\n$/);
    // D's chain is the network's: a recent tipset of D's (below where late blocks may still join) is A's.
    const chainD = d.chain!.chain;
    const recent = chainD.getTipSetByHeight(chainD.head().height - 2n, chainD.head(), true);
    const atA = (await clientA.request('Ledger.ChainGetTipSetByHeight', [Number(recent.height), null])) as TipSetJson;
    expect(atA.Cids.map((cid) => cid['/'])).toEqual(recent.key.cids.map(String));
  },
  TIMEOUT_MS,
);
