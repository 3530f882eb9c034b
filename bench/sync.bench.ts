/**
 * Chain sync throughput: a producer mines a real chain of EPOCHS tipsets (default 500; winning
 * PoSt over pre-sealed 2 KiB sectors, a signed transfer in every other block), untimed; then a
 * fresh node on the same genesis connects over libp2p on 127.0.0.1 and catches up — chain exchange
 * for headers and messages, full Expected Consensus validation (PoSt, signatures, parent state
 * execution) tipset by tipset into SQLite. Reported: epochs per second of the catch-up. Both nodes
 * must end on the same head. There is no other implementation on this machine to compare with.
 *
 * Mining 500 epochs with real proofs takes about half an hour on 2 cores, so the mined chain is kept
 * (SQLite + genesis CAR) in ~/.cache/ledger-node/bench/sync-<epochs>/ and reused by later runs; the
 * catch-up, the measured part, is always done afresh. SYNC_BENCH_REMINE=1 mines anew.
 *
 *   npm run bench:sync                 (SYNC_BENCH_EPOCHS=100 for a shorter run)
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { CID } from 'multiformats/cid';
import pino from 'pino';
import { LocalBeacon } from '../src/beacon/index.js';
import { buildGenesis, exportGenesisCar, type GenesisMiner } from '../src/chain/genesis/index.js';
import { ChainStore, TipSetStates } from '../src/chain/index.js';
import { BlockValidator } from '../src/consensus/index.js';
import { blake2b256, bls, secp256k1 } from '../src/crypto/index.js';
import { LedgerDatabase } from '../src/db/index.js';
import { importCar } from '../src/ipld/index.js';
import { attemptElection, createBlock, type MinerContext, winningBlockTemplate } from '../src/miner/index.js';
import { LedgerNetwork, loadOrCreatePeerKey } from '../src/net/index.js';
import { DEVNET_2K } from '../src/params/index.js';
import { ensureParameters, presealSector, sealedCid, unsealedCid } from '../src/proofs/index.js';
import { BlockIntake, connectSyncToNetwork, SyncManager } from '../src/sync/index.js';
import {
  Address,
  type FullBlock,
  messageSigningBytes,
  type Signature,
  SignatureType,
  type SignedMessage,
  type TipSet,
} from '../src/types/index.js';
import { report } from './harness.js';

const EPOCHS = Number(process.env.SYNC_BENCH_EPOCHS ?? 500);
const FIL = 10n ** 18n;
const params = DEVNET_2K;
const CACHE = join(process.env.LEDGER_CACHE_DIR ?? join(homedir(), '.cache', 'ledger-node'), 'bench', `sync-${EPOCHS}`);
interface CachedChain {
  genesisTimestamp: string;
  genesisCid: string;
  messages: number;
}
const cached: CachedChain | undefined =
  process.env.SYNC_BENCH_REMINE === '1' || !existsSync(join(CACHE, 'chain.json'))
    ? undefined
    : JSON.parse(readFileSync(join(CACHE, 'chain.json'), 'utf8'));
// Far enough in the past that EPOCHS epochs are all before "now".
const GENESIS_TIMESTAMP =
  cached === undefined
    ? BigInt(Math.floor(Date.now() / 1000)) - BigInt(EPOCHS + 100) * params.blockDelaySecs
    : BigInt(cached.genesisTimestamp);
const logger = pino({ level: process.env.LEDGER_BENCH_LOG ?? 'silent' });
const encoder = new TextEncoder();
const MINER = Address.newId(1000n);
const workerKey = bls.privateKeyFromSeed(blake2b256(encoder.encode('sync-bench-worker')));
const worker = Address.newBls(bls.publicKey(workerKey));
const senderKey = blake2b256(encoder.encode('sync-bench-sender'));
const sender = Address.newSecp256k1(secp256k1.publicKey(senderKey));
const receiver = Address.newSecp256k1(secp256k1.publicKey(blake2b256(encoder.encode('sync-bench-receiver'))));

const sign = async (address: Address, data: Uint8Array): Promise<Signature> => {
  if (address.equals(worker)) return { type: SignatureType.BLS, data: bls.sign(workerKey, data) };
  if (address.equals(sender)) return { type: SignatureType.Secp256k1, data: secp256k1.sign(senderKey, data) };
  throw new Error(`no key for ${address}`);
};

function transfer(nonce: bigint): SignedMessage {
  const message = {
    version: 0n,
    to: receiver,
    from: sender,
    nonce,
    value: 1n,
    gasLimit: 1_000_000n,
    gasFeeCap: 10_000_000n,
    gasPremium: 1_000n,
    method: 0n,
    params: new Uint8Array(0),
  };
  return {
    message,
    signature: { type: SignatureType.Secp256k1, data: secp256k1.sign(senderKey, messageSigningBytes(message)) },
  };
}

async function openNode(genesisCar: readonly Uint8Array[], beacon: LocalBeacon, genesisCid: CID, path = ':memory:') {
  const db = LedgerDatabase.open(path);
  const car = new PassThrough();
  for (const chunk of genesisCar) car.write(chunk);
  car.end();
  await importCar(db.blockstore, car);
  const chain = ChainStore.initialize({ db, params }, genesisCid);
  const states = new TipSetStates(chain, db);
  const validator = new BlockValidator({ chain, states, beacon, params });
  return { db, chain, states, validator };
}

/** The producer's chain from an earlier run: its SQLite store, reopened at its head. */
function openCachedProducer(beacon: LocalBeacon) {
  const db = LedgerDatabase.open(join(CACHE, 'producer.sqlite'));
  const chain = ChainStore.open({ db, params });
  const states = new TipSetStates(chain, db);
  const validator = new BlockValidator({ chain, states, beacon, params });
  return { db, chain, states, validator };
}

const beacon = LocalBeacon.fromSeed(encoder.encode('sync-bench-beacon'), GENESIS_TIMESTAMP, params.blockDelaySecs);

interface ProducedChain {
  genesisCar: Uint8Array[];
  genesisCid: CID;
  producer: Awaited<ReturnType<typeof openNode>>;
  messages: number;
}

/** Pre-seals, builds the genesis and mines EPOCHS tipsets into the cache (untimed). */
async function mineChain(): Promise<ProducedChain> {
  const sectorDirectory = mkdtempSync(join(tmpdir(), 'ledger-sync-bench-'));
  try {
    const sectors = [];
    for (let sectorNumber = 0n; sectorNumber < 2n; sectorNumber++) {
      const { commR, commD } = await presealSector({ dir: sectorDirectory, minerId: MINER.id(), sectorNumber });
      sectors.push({ commR: sealedCid(commR), commD: unsealedCid(commD), sectorNumber, proofType: 5 });
    }
    const miner: GenesisMiner = {
      id: MINER,
      owner: worker,
      worker,
      peerId: encoder.encode('sync-bench'),
      sectorSize: 2048n,
      sectors,
    };
    const source = LedgerDatabase.open(':memory:');
    const genesis = buildGenesis(
      source.blockstore,
      {
        networkName: 'sync-bench',
        timestamp: GENESIS_TIMESTAMP,
        accounts: [
          { type: 'account', balance: 1000n * FIL, owner: worker },
          { type: 'account', balance: 1000n * FIL, owner: sender },
        ],
        miners: [miner],
        remainderAccount: { type: 'account', balance: 0n, owner: receiver },
      },
      params,
    );
    const chunks: Uint8Array[] = [];
    const carStream = new PassThrough();
    carStream.on('data', (chunk: Uint8Array) => chunks.push(chunk));
    await exportGenesisCar(source.blockstore, genesis.cid, carStream);
    source.close();

    rmSync(CACHE, { recursive: true, force: true });
    mkdirSync(CACHE, { recursive: true });
    const producer = await openNode(chunks, beacon, genesis.cid, join(CACHE, 'producer.sqlite'));
    const ctx: MinerContext = { chain: producer.chain, states: producer.states, beacon, params, sectorDirectory };
    const mineStarted = performance.now();
    console.error(`  pre-sealed; mining ${EPOCHS} epochs`);
    let base: TipSet = producer.chain.head();
    let nonce = 0n;
    let messages = 0;
    for (let i = 0; i < EPOCHS; ) {
      // The first round on this base the miner wins (lost rounds are null rounds).
      let chosenRound = base.height + 1n;
      let election = await attemptElection(ctx, MINER, base, chosenRound, sign);
      while (election === null) {
        chosenRound++;
        election = await attemptElection(ctx, MINER, base, chosenRound, sign);
      }
      const included = i % 2 === 0 ? [transfer(nonce++)] : [];
      const template = winningBlockTemplate({
        miner: MINER,
        base,
        round: chosenRound,
        win: election,
        messages: included,
        blockDelaySecs: params.blockDelaySecs,
      });
      const msg = await createBlock(ctx, template, sign);
      const block: FullBlock = { header: msg.header, blsMessages: [], secpkMessages: included };
      base = await producer.validator.validateTipSet([block]);
      producer.chain.putBlock(block);
      producer.chain.addTipSet(base);
      messages += included.length;
      i++;
      if (i % 10 === 0)
        console.error(`  mined ${i}/${EPOCHS} epochs (${Math.round((performance.now() - mineStarted) / 1000)} s)`);
    }
    await producer.chain.settled();
    writeFileSync(join(CACHE, 'genesis.car'), Buffer.concat(chunks));
    const meta: CachedChain = {
      genesisTimestamp: String(GENESIS_TIMESTAMP),
      genesisCid: genesis.cid.toString(),
      messages,
    };
    // chain.json last: it marks the cache complete.
    writeFileSync(join(CACHE, 'chain.json.tmp'), JSON.stringify(meta));
    renameSync(join(CACHE, 'chain.json.tmp'), join(CACHE, 'chain.json'));
    return { genesisCar: chunks, genesisCid: genesis.cid, producer, messages };
  } finally {
    rmSync(sectorDirectory, { recursive: true, force: true });
  }
}

function cachedChain(meta: CachedChain): ProducedChain {
  console.error(`  reusing the ${EPOCHS}-epoch chain mined earlier (${CACHE}; SYNC_BENCH_REMINE=1 mines anew)`);
  return {
    genesisCar: [readFileSync(join(CACHE, 'genesis.car'))],
    genesisCid: CID.parse(meta.genesisCid),
    producer: openCachedProducer(beacon),
    messages: meta.messages,
  };
}

async function main(): Promise<void> {
  await ensureParameters();
  const repos: string[] = [];
  try {
    const {
      genesisCar: chunks,
      genesisCid,
      producer,
      messages,
    } = cached === undefined ? await mineChain() : cachedChain(cached);
    const target = producer.chain.head();
    if (target.height < BigInt(EPOCHS)) throw new Error(`the cached chain ends at ${target.height}, not ${EPOCHS}`);

    const follower = await openNode(chunks, beacon, genesisCid);
    const start = async (chain: ChainStore, name: string) => {
      const repo = mkdtempSync(join(tmpdir(), `ledger-sync-bench-${name}-`));
      repos.push(repo);
      const network = await LedgerNetwork.create({
        chain,
        networkName: 'sync-bench',
        privateKey: await loadOrCreatePeerKey(repo),
        listen: ['/ip4/127.0.0.1/tcp/0'],
        logger,
      });
      return network;
    };
    const serving = await start(producer.chain, 'producer');
    await serving.start();
    const network = await start(follower.chain, 'follower');
    const sync = new SyncManager({
      chain: follower.chain,
      intake: new BlockIntake({ chain: follower.chain, validator: follower.validator }),
      exchange: network.exchange,
      params,
      logger,
      penalizer: network.scores,
      connectedPeers: () => network.peers().map((p) => p.id),
    });
    connectSyncToNetwork({ network, sync, chain: follower.chain, states: follower.states, params, logger });
    await network.start();

    const started = performance.now();
    await network.connect(serving.listenAddresses()[0]!);
    while (!follower.chain.head().key.equals(target.key)) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      if (performance.now() - started > 60 * 60_000) throw new Error('catch-up did not finish within an hour');
    }
    const seconds = (performance.now() - started) / 1000;
    await sync.idle();
    const epochsPerSec = Number(target.height) / seconds;
    console.error(`  caught up ${target.height} epochs (${messages} messages) in ${seconds.toFixed(1)} s`);
    await network.stop();
    await serving.stop();
    await producer.chain.settled();
    await follower.chain.settled();
    producer.db.close();
    follower.db.close();
    report(
      'sync',
      [
        {
          case: `catch up ${target.height} epochs over libp2p, full validation`,
          impl: 'ledger-node',
          opsPerSec: epochsPerSec,
        },
      ],
      {},
      { epochs: Number(target.height), messages, seconds, head: target.key.toString() },
    );
  } finally {
    for (const repo of repos) rmSync(repo, { recursive: true, force: true });
  }
}

await main();
process.exit(0);
