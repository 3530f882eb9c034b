/**
 * The storage-miner methods (PledgeSector, SectorsList, SectorsStatus, ActorAddress, StorageMinerList,
 * StorageMinerAdd, Proving*) over a real RPC server and the chain fixture, whose genesis miner t01000
 * has two sectors on chain. The storage service is a small book of sector records standing in for the
 * node's LocalMiners (src/node/local-miners.ts, which needs a running node): what is tested here is
 * the methods' shapes, the miner parameter, permissions and errors.
 */
import { CID } from 'multiformats/cid';
import { packingSector, type SealingSector, SectorState } from '../../src/miner/sealing/index.js';
import { NoSuchMinerError } from '../../src/node/errors.js';
import { commRFromCid, DEVNET_SEAL_PROOF } from '../../src/proofs/index.js';
import type { LocalMinerStatus, StorageContext } from '../../src/rpc/index.js';
import { Address } from '../../src/types/index.js';
import { type ChainServer, startChainServer } from '../helpers/chain-server.js';
import { call } from './harness.js';

type Status = LocalMinerStatus['proving'];

/** The node's miners as LocalMiners keeps them: by ID, first added first. */
class SectorBook implements StorageContext {
  readonly #miners = new Map<bigint, { worker: Address; sectors: SealingSector[]; paused: boolean }>();

  register(miner: Address, worker: Address, sectors: SealingSector[] = []): void {
    this.#miners.set(miner.id(), { worker, sectors, paused: false });
  }

  miners(): readonly LocalMinerStatus[] {
    return [...this.#miners.keys()].map((id) => this.#status(id));
  }

  async add(miner: Address): Promise<LocalMinerStatus> {
    if (miner.protocol !== 0) throw new NoSuchMinerError(`no miner ${miner} on chain`);
    this.register(miner, miner);
    return this.#status(miner.id());
  }

  async pledgeSector(miner?: Address): Promise<SealingSector> {
    const entry = this.#entry(miner);
    const sector = packingSector(this.#idOf(miner), BigInt(entry.sectors.length + 2), DEVNET_SEAL_PROOF);
    entry.sectors.push(sector);
    return sector;
  }

  sectors(miner?: Address): readonly SealingSector[] {
    return this.#entry(miner).sectors;
  }

  provingPause(miner?: Address): Status {
    this.#entry(miner).paused = true;
    return this.#status(this.#idOf(miner)).proving;
  }

  provingResume(miner?: Address): Status {
    this.#entry(miner).paused = false;
    return this.#status(this.#idOf(miner)).proving;
  }

  #idOf(miner: Address | undefined): bigint {
    const id = miner === undefined ? this.#miners.keys().next().value : miner.id();
    if (id === undefined || !this.#miners.has(id)) throw new NoSuchMinerError(`this node does not run miner ${miner}`);
    return id;
  }

  #entry(miner: Address | undefined) {
    return this.#miners.get(this.#idOf(miner)) as { worker: Address; sectors: SealingSector[]; paused: boolean };
  }

  #status(id: bigint): LocalMinerStatus {
    const entry = this.#miners.get(id) as { worker: Address; paused: boolean };
    const address = Address.newId(id);
    return {
      address,
      worker: entry.worker,
      sectorDirectory: `/sectors/${id}`,
      proving: {
        miner: address,
        running: true,
        paused: entry.paused,
        height: 10n,
        proven: [],
        submissions: [],
        recoveries: [],
      },
    };
  }
}

let chain: ChainServer;
let book: SectorBook;
let sealed: { '/': string };
let writeToken: string;

beforeAll(async () => {
  book = new SectorBook();
  chain = await startChainServer({ storage: book });
  writeToken = await chain.tokens.create(['read', 'write']);
  const onChain = await call(chain.url(), 'Ledger.StateSectorGetInfo', ['t01000', 0, null]);
  sealed = (onChain.result as { SealedCID: { '/': string } }).SealedCID;
  const proving: SealingSector = {
    ...packingSector(1000n, 0n, DEVNET_SEAL_PROOF),
    state: SectorState.Proving,
    commR: commRFromCid(CID.parse(sealed['/'])),
    ticket: new Uint8Array(32).fill(7),
    ticketEpoch: 3n,
  };
  book.register(Address.newId(1000n), Address.newId(1000n), [proving]);
});
afterAll(() => chain.close());

const writer = () => ({ authorization: `Bearer ${writeToken}` });

test('ActorAddress and StorageMinerList name the first miner', async () => {
  expect((await call(chain.url(), 'Ledger.ActorAddress', [])).result).toBe('t01000');
  const list = (await call(chain.url(), 'Ledger.StorageMinerList', [])).result as { Address: string }[];
  expect(list.map((miner) => miner.Address)).toEqual(['t01000']);
  expect(list[0]).toMatchObject({ Worker: 't01000', Proving: { Miner: 't01000', Running: true, Paused: false } });
});

test('SectorsStatus returns Lotus SectorInfo, with the on-chain sector and its location when asked', async () => {
  const plain = (await call(chain.url(), 'Ledger.SectorsStatus', [0, false, null])).result;
  expect(plain).toEqual({
    SectorID: 0,
    State: 'Proving',
    CommD: null,
    CommR: sealed,
    Proof: null,
    Ticket: { Value: Buffer.alloc(32, 7).toString('base64'), Epoch: 3 },
    Seed: { Value: null, Epoch: 0 },
    PreCommitMsg: null,
    CommitMsg: null,
    SealProof: DEVNET_SEAL_PROOF,
    LastErr: '',
  });
  const withChain = (await call(chain.url(), 'Ledger.SectorsStatus', [0, true, 't01000'])).result as {
    OnChain: Record<string, unknown>;
  };
  expect(withChain.OnChain).toMatchObject({ SectorNumber: 0, SealedCID: sealed, Deadline: expect.any(Number) });
  expect(withChain.OnChain.Partition).toBe(0);
});

test('PledgeSector needs write, returns abi.SectorID, and SectorsList lists it', async () => {
  const denied = await call(chain.url(), 'Ledger.PledgeSector', [null]);
  expect(denied.error).toEqual({ code: 1, message: "missing permission to invoke 'PledgeSector' (need 'write')" });
  const pledged = await call(chain.url(), 'Ledger.PledgeSector', [null], writer());
  expect(pledged.result).toEqual({ Miner: 1000, Number: 3 });
  expect((await call(chain.url(), 'Ledger.SectorsList', ['t01000'])).result).toEqual([0, 3]);
  // As a Lotus client calls them (lotus-miner's methods have no miner parameter): the first miner.
  expect((await call(chain.url(), 'Filecoin.PledgeSector', [], writer())).result).toEqual({ Miner: 1000, Number: 4 });
  expect((await call(chain.url(), 'Filecoin.SectorsList', [])).result).toEqual([0, 3, 4]);
  const tooMany = await call(chain.url(), 'Ledger.SectorsList', ['t01000', 1]);
  expect(tooMany.error?.message).toBe("wrong param count (method 'Ledger.SectorsList'): 2 != 1 (expected [miner])");
  const packing = (await call(chain.url(), 'Ledger.SectorsStatus', [3, true])).result;
  expect(packing).toMatchObject({ SectorID: 3, State: 'Packing', CommR: null, OnChain: null });
});

test('ProvingPause and ProvingResume need write and flip the status ProvingStatus reads', async () => {
  const denied = await call(chain.url(), 'Ledger.ProvingPause', [null]);
  expect(denied.error?.message).toBe("missing permission to invoke 'ProvingPause' (need 'write')");
  expect((await call(chain.url(), 'Ledger.ProvingPause', ['t01000'], writer())).result).toMatchObject({ Paused: true });
  expect((await call(chain.url(), 'Ledger.ProvingStatus', [null])).result).toMatchObject({
    Miner: 't01000',
    Paused: true,
    ProvenDeadlines: [],
    Height: 10,
  });
  expect((await call(chain.url(), 'Ledger.ProvingResume', [null], writer())).result).toMatchObject({ Paused: false });
});

test('an unknown miner or sector is a JSON-RPC error naming it', async () => {
  const unknownMiner = await call(chain.url(), 'Ledger.SectorsList', ['t01234']);
  expect(unknownMiner.error).toEqual({ code: 1, message: 'this node does not run miner t01234' });
  const notRun = await call(chain.url(), 'Ledger.ProvingStatus', ['t01234']);
  expect(notRun.error).toEqual({ code: 1, message: 'this node does not run miner t01234' });
  const unknownSector = await call(chain.url(), 'Ledger.SectorsStatus', [99, false, null]);
  expect(unknownSector.error?.message).toBe('sector 99 not found: this node has not sealed it for its first miner');
  const badAddress = await call(chain.url(), 'Ledger.SectorsList', ['nope']);
  expect(badAddress.error?.code).toBe(-32602);
  expect(badAddress.error?.message).toContain('miner');
});

test('StorageMinerAdd needs write and returns the miner it runs', async () => {
  const denied = await call(chain.url(), 'Ledger.StorageMinerAdd', ['t01001']);
  expect(denied.error?.message).toBe("missing permission to invoke 'StorageMinerAdd' (need 'write')");
  const added = await call(chain.url(), 'Ledger.StorageMinerAdd', ['t01001'], writer());
  expect(added.result).toMatchObject({ Address: 't01001', SectorDirectory: '/sectors/1001' });
  const refused = await call(
    chain.url(),
    'Ledger.StorageMinerAdd',
    ['t1d2xrzcslx7xlbbylc5c3d5lvandqw4iwl6epxba'],
    writer(),
  );
  expect(refused.error).toEqual({ code: 1, message: 'no miner t1d2xrzcslx7xlbbylc5c3d5lvandqw4iwl6epxba on chain' });
});
