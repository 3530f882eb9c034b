/**
 * The chain, state and miner methods over HTTP on a real devnet, their Lotus shapes, nulls and
 * errors. The mining loop is off: the test produces blocks itself, the way an external miner
 * would — a real election with winning PoSt, MinerCreateBlock over RPC with a signed transfer,
 * consensus validation — so it knows exactly what each block holds.
 */
import { attemptElection, type MinerContext } from '../../src/miner/index.js';
import {
  type Address,
  blockMsgFromLotusJson,
  type CidJson,
  FILECOIN_PRECISION,
  type MessageJson,
  type SignedMessageJson,
  signedMessageFromLotusJson,
  type TipSet,
  type TipSetJson,
} from '../../src/types/index.js';
import { type Devnet, startDevnet } from '../helpers/devnet.js';

const PROOF_TIMEOUT_MS = 10 * 60_000;
let devnet: Devnet;
let genesis: TipSetJson;
let accounts: string[];

beforeAll(async () => {
  devnet = await startDevnet({ mine: false, blockTimeMs: 1000, accounts: 3 });
  genesis = await devnet.rpc<TipSetJson>('ChainHead');
  accounts = devnet.node.chain!.devnet.accounts.map((a) => a.toString());
}, PROOF_TIMEOUT_MS);
afterAll(() => devnet?.stop());

/** Calls a method and returns the JSON-RPC error it fails with. */
async function rpcError(method: string, params: unknown[], perm?: Parameters<Devnet['rpc']>[2]) {
  try {
    await devnet.rpc(method, params, perm);
  } catch (error) {
    return error as { rpcCode: number; message: string };
  }
  throw new Error(`${method} did not fail`);
}

/**
 * Mines one block on the head as an external miner does: election (ticket, election proof, real
 * winning PoSt) through the miner library, MinerCreateBlock over RPC, then the node's block intake
 * as a submitted block would get. Lost rounds are null rounds.
 */
async function mineBlock(messages: SignedMessageJson[] = []): Promise<TipSetJson> {
  const { chain, mining, wallet } = devnet.node;
  const services = chain!;
  const ctx: MinerContext = {
    chain: services.chain,
    states: services.states,
    beacon: services.beacon,
    params: services.params,
    sectorDirectory: services.devnet.sectorDirectory,
  };
  const sign = async (address: Address, data: Uint8Array) => wallet.sign(address, data);
  const base = services.chain.head();
  for (let round = base.height + 1n; ; round++) {
    const win = await attemptElection(ctx, services.devnet.miner, base, round, sign);
    if (win === null) continue;
    const timestamp = base.timestamp + services.params.blockDelaySecs * (round - base.height);
    const blockMsg = blockMsgFromLotusJson(
      await devnet.rpc('MinerCreateBlock', [
        {
          Miner: 't01000',
          Parents: tipSetKeyJson(base),
          Ticket: { VRFProof: Buffer.from(win.ticket.vrfProof).toString('base64') },
          Eproof: {
            WinCount: Number(win.electionProof.winCount),
            VRFProof: Buffer.from(win.electionProof.vrfProof).toString('base64'),
          },
          BeaconValues: win.beaconEntries.map((e) => ({
            Round: Number(e.round),
            Data: Buffer.from(e.data).toString('base64'),
          })),
          Messages: messages,
          Epoch: Number(round),
          Timestamp: Number(timestamp),
          WinningPoStProof: win.winPoStProof.map((p) => ({
            PoStProof: p.postProof,
            ProofBytes: Buffer.from(p.proofBytes).toString('base64'),
          })),
        },
      ]),
    );
    const wait = Number(timestamp) * 1000 - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const signed = messages.map((m) => signedMessageFromLotusJson(m));
    // The test sends secp256k1 messages only: all of them are the block's secp list.
    const full = { header: blockMsg.header, blsMessages: [], secpkMessages: signed };
    await mining!.intake.submit(full, 'rpc');
    return devnet.rpc<TipSetJson>('ChainHead');
  }
}

function tipSetKeyJson(tipSet: TipSet): CidJson[] {
  return tipSet.key.cids.map((cid) => ({ '/': cid.toString() }));
}

describe('on the genesis', () => {
  test('ChainHead and ChainGetGenesis return the genesis tipset in Lotus JSON', async () => {
    expect(genesis.Height).toBe(0);
    expect(genesis.Cids).toHaveLength(1);
    const block = genesis.Blocks[0]!;
    expect(block).toMatchObject({ Miner: 't00', ParentWeight: '0', ParentBaseFee: '100000000', BlockSig: null });
    expect(block.ElectionProof).toEqual({ WinCount: 0, VRFProof: null });
    expect(await devnet.rpc('ChainGetGenesis', [], 'none')).toEqual(genesis);
    expect(await devnet.rpc('ChainGetTipSet', [null], 'none')).toEqual(genesis);
    expect(await devnet.rpc('ChainGetTipSet', [genesis.Cids], 'none')).toEqual(genesis);
  });

  test('ChainGetTipSetByHeight: the tipset at a height, Lotus errors outside the chain', async () => {
    expect(await devnet.rpc('ChainGetTipSetByHeight', [0, null], 'none')).toEqual(genesis);
    expect(await devnet.rpc('ChainGetTipSetAfterHeight', [0, null], 'none')).toEqual(genesis);
    expect((await rpcError('ChainGetTipSetByHeight', [-1, null])).message).toBe('height -1 is negative');
    expect((await rpcError('ChainGetTipSetByHeight', [5, []])).message).toBe(
      'looking for tipset with height greater than start point, req: 5, head: 0',
    );
    const bad = await rpcError('ChainGetTipSetByHeight', ['five', null]);
    expect(bad.rpcCode).toBe(-32602);
    expect(bad.message).toMatch(/height/);
  });

  test('ChainGetBlock, ChainGetBlockMessages; parent messages and receipts of genesis are null', async () => {
    const cid = genesis.Cids[0]!;
    expect(await devnet.rpc('ChainGetBlock', [cid], 'none')).toEqual(genesis.Blocks[0]);
    expect(await devnet.rpc('ChainGetBlockMessages', [cid], 'none')).toEqual({
      BlsMessages: [],
      SecpkMessages: [],
      Cids: [],
    });
    expect(await devnet.rpc('ChainGetParentMessages', [cid], 'none')).toBeNull();
    expect(await devnet.rpc('ChainGetParentReceipts', [cid], 'none')).toBeNull();
    const unknown = { '/': 'bafy2bzacea3wsdh6y3a36tb3skempjoxqpuyompjbmfeyf34fi3uy6uue42v4' };
    const missing = await rpcError('ChainGetBlock', [unknown]);
    expect(missing.rpcCode).toBe(1);
    expect(missing.message).toContain(unknown['/']);
    expect((await rpcError('ChainGetMessage', [unknown])).message).toContain('not found');
  });

  test('WalletBalance: funded accounts hold 10,000 FIL; an unknown address has "0"', async () => {
    expect(await devnet.rpc('WalletBalance', [accounts[0]], 'none')).toBe((10_000n * FILECOIN_PRECISION).toString());
    expect(await devnet.rpc('WalletBalance', ['t1d2xrzcslx7xlbbylc5c3d5lvandqw4iwl6epxba'], 'none')).toBe('0');
    expect((await rpcError('WalletBalance', ['not-an-address'])).rpcCode).toBe(-32602);
  });

  test('StateGetActor, StateLookupID, StateAccountKey; code 11 for a missing actor', async () => {
    const actor = await devnet.rpc<{ Balance: string; Nonce: number; Code: CidJson }>('StateGetActor', [
      accounts[0],
      null,
    ]);
    expect(actor).toMatchObject({ Balance: (10_000n * FILECOIN_PRECISION).toString(), Nonce: 0 });
    const id = await devnet.rpc<string>('StateLookupID', [accounts[0], null], 'none');
    expect(id).toMatch(/^t01\d\d$/);
    expect(await devnet.rpc('StateAccountKey', [id, null], 'none')).toBe(accounts[0]);
    expect(await devnet.rpc('StateLookupID', ['t01000', null], 'none')).toBe('t01000');
    const unknown = 't1d2xrzcslx7xlbbylc5c3d5lvandqw4iwl6epxba';
    expect(await rpcError('StateLookupID', [unknown, null])).toMatchObject({ rpcCode: 11, message: 'actor not found' });
    expect((await rpcError('StateGetActor', [unknown, null])).rpcCode).toBe(11);
    expect((await rpcError('StateAccountKey', ['t099999', null])).rpcCode).toBe(11);
  });

  test('StateNetworkName and StateMinerPower', async () => {
    expect(await devnet.rpc('StateNetworkName', [], 'none')).toMatch(/^localnet-[0-9a-f-]{36}$/);
    const power = await devnet.rpc<{ MinerPower: { RawBytePower: string }; HasMinPower: boolean }>('StateMinerPower', [
      't01000',
      null,
    ]);
    expect(power.MinerPower.RawBytePower).toBe('4096');
    expect(power.HasMinPower).toBe(true);
    for (const noClaim of [accounts[0], 't099999']) {
      expect(await devnet.rpc('StateMinerPower', [noClaim, null])).toMatchObject({
        MinerPower: { RawBytePower: '0', QualityAdjPower: '0' },
        TotalPower: { RawBytePower: '4096' },
        HasMinPower: false,
      });
    }
  });

  test('MinerGetBaseInfo needs a tipset key and describes the round', async () => {
    const info = await devnet.rpc<Record<string, unknown>>('MinerGetBaseInfo', ['t01000', 1, genesis.Cids], 'none');
    expect(info).toMatchObject({ EligibleForMining: true, SectorSize: 2048 });
    expect((info.Sectors as unknown[]).length).toBeGreaterThan(0);
    expect(info.WorkerKey).toBe(devnet.node.chain!.devnet.worker.toString());
    expect((info.BeaconEntries as unknown[]).length).toBeGreaterThan(0);
    expect((await rpcError('MinerGetBaseInfo', ['t01000', 1, []])).message).toBe(
      'NewTipSet called with zero length array of blocks',
    );
  });

  test('MinerCreateBlock needs write permission and a ticket', async () => {
    expect((await rpcError('MinerCreateBlock', [{}], 'read')).message).toBe(
      "missing permission to invoke 'MinerCreateBlock' (need 'write')",
    );
    const noTicket = await rpcError('MinerCreateBlock', [
      { Miner: 't01000', Parents: genesis.Cids, Ticket: null, Eproof: null, Epoch: 1, Timestamp: 0 },
    ]);
    expect(noTicket.message).toMatch(/Ticket/);
  });
});

describe('blocks with a message', () => {
  test(
    'a transfer goes into a block built by MinerCreateBlock; the child reports it as parent message with its receipt',
    async () => {
      const message = {
        Version: 0,
        To: accounts[1],
        From: accounts[0],
        Nonce: 0,
        Value: FILECOIN_PRECISION.toString(),
        GasLimit: 10_000_000,
        GasFeeCap: '1000000000',
        GasPremium: '100000',
        Method: 0,
        Params: null,
      };
      const signed = await devnet.rpc<SignedMessageJson>('WalletSignMessage', [accounts[0], message], 'sign');
      const first = await mineBlock([signed]);
      const block = first.Cids[0]!;
      const contents = await devnet.rpc<{ SecpkMessages: SignedMessageJson[]; Cids: CidJson[] }>(
        'ChainGetBlockMessages',
        [block],
      );
      expect(contents.SecpkMessages).toEqual([signed]);
      expect(contents.Cids).toEqual([signed.CID]);
      const unsigned = await devnet.rpc<MessageJson>('ChainGetMessage', [signed.CID]);
      expect(unsigned).toEqual(signed.Message);
      expect(unsigned.CID).not.toEqual(signed.CID);

      const second = await mineBlock();
      const child = second.Cids[0]!;
      expect(await devnet.rpc('ChainGetParentMessages', [child], 'none')).toEqual([
        { Cid: signed.CID, Message: signed.Message },
      ]);
      const receipts = await devnet.rpc<Array<{ ExitCode: number; GasUsed: number }>>('ChainGetParentReceipts', [
        child,
      ]);
      expect(receipts).toHaveLength(1);
      expect(receipts[0]!.ExitCode).toBe(0);
      expect(receipts[0]!.GasUsed).toBeGreaterThan(0);
      expect(await devnet.rpc('WalletBalance', [accounts[1]])).toBe((10_001n * FILECOIN_PRECISION).toString());
      expect(await devnet.rpc('ChainGetTipSetByHeight', [first.Height, null])).toEqual(first);
      expect(await devnet.rpc('ChainGetTipSetAfterHeight', [first.Height, null])).toEqual(first);
      expect(await devnet.rpc('ChainGetMessagesInTipset', [first.Cids], 'none')).toEqual([
        { Cid: signed.CID, Message: signed.Message },
      ]);
      expect(await devnet.rpc('ChainGetMessagesInTipset', [second.Cids], 'none')).toBeNull();
      expect(await devnet.rpc('ChainGetMessagesInTipset', [genesis.Cids], 'none')).toBeNull();
    },
    PROOF_TIMEOUT_MS,
  );
});

describe('the wider API on the mined chain (issue 21)', () => {
  test(
    "StateReadState, StateListActors, the circulating supply, the network params and the beacon entry, in Lotus's shapes",
    async () => {
      const head = await mineBlock();
      const miner = devnet.node.chain!.devnet.miner.toString();
      const state = await devnet.rpc<{ Balance: string; State: { Info: CidJson; Sectors: CidJson } }>(
        'StateReadState',
        [miner, null],
      );
      expect(state.State).toMatchObject({ Info: { '/': expect.any(String) }, Sectors: { '/': expect.any(String) } });
      expect(await devnet.rpc<string[]>('StateListActors', [null])).toContain(miner);

      // The exact sum over every actor must make the total supply, or the node answers an error.
      const exact = BigInt(await devnet.rpc<string>('StateCirculatingSupply', [null]));
      const vm = await devnet.rpc<Record<string, string>>('StateVMCirculatingSupplyInternal', [null]);
      const [vested, mined, burnt, locked, circulating, disbursed] = Object.values(vm).map(BigInt) as bigint[];
      expect(vested! + mined! + disbursed! - burnt! - locked!).toBe(circulating);
      expect(exact).toBeGreaterThan(0n);
      expect(circulating).toBeGreaterThan(0n);

      const params = await devnet.rpc<{ NetworkName: string; BlockDelaySecs: number; GenesisTimestamp: number }>(
        'StateGetNetworkParams',
      );
      expect(params.NetworkName).toBe(await devnet.rpc('StateNetworkName'));
      expect(params.GenesisTimestamp).toBe(genesis.Blocks[0]!.Timestamp);
      const entry = await devnet.rpc<{ Round: number; Data: string }>('StateGetBeaconEntry', [head.Height]);
      // The entry of the head's epoch is the one its block carries (the devnet beacon has one round per epoch).
      expect((head.Blocks[0] as unknown as { BeaconEntries: unknown[] }).BeaconEntries).toContainEqual(entry);
      const path = await devnet.rpc<Array<{ Type: string }>>('ChainGetPath', [genesis.Cids, head.Cids]);
      expect(path.map((change) => change.Type)).toEqual(Array(path.length).fill('apply'));
      expect(path.length).toBeGreaterThan(0);
    },
    PROOF_TIMEOUT_MS,
  );

  test(
    'SyncValidateTipset validates mined tipsets again (Expected Consensus, real proofs); ChainTipSetWeight is what fork choice compares',
    async () => {
      const head = await mineBlock();
      expect(await devnet.rpc('SyncValidateTipset', [head.Cids])).toBe(true);
      expect(await devnet.rpc('SyncValidateTipset', [genesis.Cids])).toBe(true);
      expect(await devnet.rpc('SyncCheckBad', [head.Cids[0]])).toBe('');
      const weight = BigInt(await devnet.rpc<string>('ChainTipSetWeight', [head.Cids]));
      expect(weight).toBeGreaterThan(BigInt(head.Blocks[0]!.ParentWeight));
      const store = devnet.node.chain!.chain;
      expect(weight).toBe(store.weightOf(store.head()));
    },
    PROOF_TIMEOUT_MS,
  );
});
