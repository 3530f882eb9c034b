/**
 * `ledger network create` below the network: what it writes (a genesis CAR rooted at the definition's
 * genesis, a definition, lotus-seed's files per pre-sealed miner, the template as built, a multisig
 * from the template in the genesis state), and a node started with the definition: the genesis
 * imported and the definition kept in the repo, resumed without it, a definition of another genesis
 * refused, a pre-sealed miner's directory run with its key. No mining here (p2p off, miner stopped).
 */
import { createReadStream, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { secp256k1 } from '../../src/crypto/index.js';
import { importCar, MemoryBlockstore } from '../../src/ipld/index.js';
import { type LedgerNode, LedgerNode as Node } from '../../src/node/index.js';
import { createNetwork } from '../../src/node/network-create.js';
import { readNetworkDefinitionFile } from '../../src/node/network-definition.js';
import { actorNameOf, StateTree } from '../../src/state/index.js';
import { Address, setDefaultNetwork } from '../../src/types/index.js';

const silent = pino({ level: 'silent' });
const dirs: string[] = [];
const nodes: LedgerNode[] = [];
const tempDir = (prefix: string) => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
};
afterAll(async () => {
  for (const node of nodes) await node.stop().catch(() => undefined);
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  setDefaultNetwork('f');
});

const SIGNERS = [1, 2].map((n) => Address.newSecp256k1(secp256k1.publicKey(new Uint8Array(32).fill(n))).toString('t'));
const template = (name: string) => ({
  NetworkName: name,
  Accounts: [
    {
      Type: 'multisig',
      Balance: '5000000000000000000000',
      Meta: { Signers: SIGNERS, Threshold: 2, VestingDuration: 0, VestingStart: 0 },
    },
  ],
  Miners: [{ ID: 't01000', Sectors: 1 }],
});

function start(repoPath: string, options: Partial<Parameters<typeof Node.start>[0]> = {}): Promise<LedgerNode> {
  return Node.start({ repoPath, logger: silent, overrides: { apiPort: 0 }, p2p: { enabled: false }, ...options }).then(
    (node) => {
      nodes.push(node);
      return node;
    },
  );
}

test('a network from a template: genesis, definition, pre-sealed miner; a node joins, resumes, refuses another', async () => {
  const out = join(tempDir('ledger-netcreate-'), 'net');
  const created = await createNetwork(template('unit-net'), { outDir: out, blockDelaySecs: 10 });
  const definition = readNetworkDefinitionFile(join(out, 'network.json'));
  expect(definition).toEqual(created.definition);
  expect(definition.params.blockDelaySecs).toBe(10n);
  const minerDir = join(out, 'miners', 't01000');
  expect(created.minerDirectories).toEqual(new Map([['t01000', minerDir]]));
  for (const file of ['pre-seal-t01000.json', 'pre-seal-t01000.key', 'sectorstore.json']) {
    expect(existsSync(join(minerDir, file))).toBe(true);
  }
  const built = JSON.parse(readFileSync(join(out, 'genesis-template.json'), 'utf8'));
  // The miner's manifest and its owner's account, as `lotus-seed genesis add-miner` adds them.
  expect(built.Miners[0].ID).toBe('t01000');
  expect(built.Accounts[1]).toEqual({
    Type: 'account',
    Balance: '50000000000000000000000000',
    Meta: { Owner: built.Miners[0].Owner },
  });
  const { roots } = await importCar(new MemoryBlockstore(), createReadStream(join(out, 'genesis.car')));
  expect(roots.map(String)).toEqual([definition.genesis!.cid.toString()]);

  // A node joins: genesis imported, definition kept in the repo, the miner run from its directory.
  const repo = tempDir('ledger-netnode-');
  let node = await start(repo, { network: definition, miners: [minerDir], devnet: undefined });
  const chain = node.chain!;
  expect(chain.chain.genesis.key.cids[0]!.equals(definition.genesis!.cid)).toBe(true);
  expect(chain.network.name).toBe('unit-net');
  expect(chain.devnet).toBeUndefined();
  expect(node.miners!.miners().map((m) => [m.address.toString(), m.sectorDirectory])).toEqual([['t01000', minerDir]]);
  expect(node.wallet.has(Address.fromString(built.Miners[0].Worker))).toBe(true);
  const tree = StateTree.load(chain.chain.blockstore, chain.chain.genesis.parentStateRoot);
  // The template's multisig: an actor after the accounts (f0100 on), holding its balance.
  const multisigs = [100n, 101n, 102n, 103n, 104n]
    .map((id) => tree.getActor(id))
    .filter((actor) => actor !== undefined && actorNameOf(actor.code) === 'multisig');
  expect(multisigs.map((actor) => actor!.balance)).toEqual([5000n * 10n ** 18n]);
  expect(existsSync(join(repo, 'network.json')) && existsSync(join(repo, 'genesis.car'))).toBe(true);
  await node.stop();

  // Resumed without --network: the repo's definition.
  node = await start(repo);
  expect(node.chain?.network.name).toBe('unit-net');
  expect(node.chain?.params.blockDelaySecs).toBe(10n);
  await node.stop();

  // Another network's definition on this repo: refused, naming both.
  const other = join(tempDir('ledger-netcreate-'), 'net');
  const second = await createNetwork(template('other-net'), { outDir: other });
  await expect(start(repo, { network: second.definition })).rejects.toThrow(
    `repo ${repo} belongs to network unit-net (genesis ${definition.genesis!.cid}), not other-net (genesis ${second.definition.genesis!.cid}): use another --repo`,
  );
  // A definition without a genesis CAR cannot start a new repo: it says what to do instead.
  const noCar = { ...second.definition, genesis: { ...second.definition.genesis!, car: undefined } };
  await expect(start(tempDir('ledger-netnode-'), { network: noCar })).rejects.toThrow(
    'network other-net gives no genesis CAR: start the node with --import-snapshot, or add Genesis.Car to its definition',
  );
}, 300_000);

test('bad input: a non-empty --out, a miner to pre-seal with other fields, a bad --miner directory', async () => {
  const out = tempDir('ledger-netcreate-');
  writeFileSync(join(out, 'x'), '');
  await expect(createNetwork(template('n'), { outDir: out })).rejects.toThrow(`--out ${out} is not empty`);
  await expect(
    createNetwork(
      { ...template('n'), Miners: [{ ID: 't01000', Sectors: 1, Owner: 't01' }] },
      { outDir: join(out, 'a') },
    ),
  ).rejects.toThrow('Template.Miners[0]: a miner to pre-seal has only ID and Sectors, not Owner');
  await expect(
    createNetwork({ ...template('n'), Miners: [{ ID: 't01000', Sectors: 0 }] }, { outDir: join(out, 'b') }),
  ).rejects.toThrow('Template.Miners[0].Sectors: expected a count of sectors to pre-seal from 1 to 64, got 0');
  await expect(createNetwork(template('n'), { outDir: join(out, 'd'), preset: 'mainnet' })).rejects.toThrow(
    "Template.Miners[0].Sectors: 1 pre-sealed 2 KiB sectors are below the mainnet preset's minimum mining power (10995116277760 bytes): pre-seal on the devnet preset",
  );
  // Refused before anything was written.
  expect(existsSync(join(out, 'd'))).toBe(false);
  await expect(createNetwork(template('n'), { outDir: join(out, 'c'), blockDelaySecs: 0 })).rejects.toThrow(
    'BlockDelaySecs: expected an integer from 1 to 3600, got 0',
  );
  const { loadPreSealedMiner } = await import('../../src/node/network-miner.js');
  const empty = join(out, 'empty');
  mkdirSync(empty);
  expect(() => loadPreSealedMiner(empty, undefined as never)).toThrow(
    `--miner ${empty}: expected one pre-seal-<miner>.json, found 0`,
  );
});
