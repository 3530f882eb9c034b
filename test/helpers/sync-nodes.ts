/**
 * Real nodes in one process for sync tests, on a `miningChain()` genesis: each node has its own
 * SQLite chain store, block validator, libp2p network on 127.0.0.1 and sync manager wired to that
 * network. `mine` makes a real block (election, winning PoSt, signature) on a node's own store;
 * `extend` hands it to that node's block intake, as its mining loop does.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import pino from 'pino';
import { exportGenesisCar } from '../../src/chain/genesis/index.js';
import { ChainStore, TipSetStates } from '../../src/chain/index.js';
import { BlockValidator } from '../../src/consensus/index.js';
import { LedgerDatabase } from '../../src/db/index.js';
import { importCar } from '../../src/ipld/index.js';
import { LedgerNetwork, loadOrCreatePeerKey } from '../../src/net/index.js';
import { BlockIntake, connectSyncToNetwork, SyncManager } from '../../src/sync/index.js';
import type { Address, BlockMsg, FullBlock, SignedMessage, TipSet } from '../../src/types/index.js';
import { PARAMS } from './genesis.js';
import { MINER, type MiningChain, mineBlock } from './mining-chain.js';

const logger = pino({ level: 'silent' });

export interface SyncNode {
  readonly db: LedgerDatabase;
  readonly chain: ChainStore;
  readonly states: TipSetStates;
  readonly validator: BlockValidator;
  readonly network: LedgerNetwork;
  readonly sync: SyncManager;
}

/** A block `miner` wins on `base`, with these messages; lost elections are null rounds. */
export async function mine(
  fixture: MiningChain,
  on: Pick<SyncNode, 'chain' | 'states'>,
  base: TipSet,
  messages: SignedMessage[],
  miner: Address = MINER,
): Promise<{ block: FullBlock; msg: BlockMsg }> {
  // Mining reads the node's own store, so every state it needs is executed there.
  return mineBlock(fixture, base, messages, { miner, ctx: { ...fixture.ctx, chain: on.chain, states: on.states } });
}

/** A block the node mined, through its block intake (validated, stored, merged); the tipset it joined. */
export function extend(target: Pick<SyncNode, 'sync'>, block: FullBlock): Promise<TipSet> {
  return target.sync.intake.submit(block, 'mined');
}

export async function until(check: () => boolean, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Nodes on one fixture's genesis; `close` stops and removes every node made. */
export class SyncNodes {
  readonly #fixture: MiningChain;
  readonly #cleanup: Array<() => Promise<void>> = [];

  constructor(fixture: MiningChain) {
    this.#fixture = fixture;
  }

  /** A node on the fixture's genesis: its own SQLite chain store, validator and network, started. */
  async node(name: string): Promise<SyncNode> {
    const genesis = this.#fixture.chain.genesis.cids[0]!;
    const db = LedgerDatabase.open(':memory:');
    const car = new PassThrough();
    const exported = exportGenesisCar(this.#fixture.chain.blockstore, genesis, car);
    await importCar(db.blockstore, car);
    await exported;
    const chain = ChainStore.initialize({ db, params: PARAMS }, genesis);
    const states = new TipSetStates(chain, db);
    const validator = new BlockValidator({ chain, states, beacon: this.#fixture.beacon, params: PARAMS });
    const repo = mkdtempSync(join(tmpdir(), `ledger-sync-${name}-`));
    const network = await LedgerNetwork.create({
      chain,
      networkName: 'ledger-test',
      privateKey: await loadOrCreatePeerKey(repo),
      listen: ['/ip4/127.0.0.1/tcp/0'],
      logger,
    });
    const sync = new SyncManager({
      chain,
      intake: new BlockIntake({ chain, validator }),
      exchange: network.exchange,
      params: PARAMS,
      logger,
      penalizer: network.scores,
      connectedPeers: () => network.peers().map((p) => p.id),
    });
    connectSyncToNetwork({ network, sync, chain, states, params: PARAMS, logger });
    await network.start();
    this.#cleanup.push(async () => {
      sync.stop();
      await network.stop();
      await chain.settled();
      db.close();
      rmSync(repo, { recursive: true, force: true });
    });
    return { db, chain, states, validator, network, sync };
  }

  async close(): Promise<void> {
    for (const step of this.#cleanup.reverse()) await step();
    this.#cleanup.length = 0;
  }
}
