/**
 * StateGetRandomnessFromTickets, StateGetRandomnessFromBeacon and StateNetworkVersion over HTTP:
 * Lotus's parameters (`[dst, randEpoch, entropy base64|null, tsk]`), 32 bytes of base64 back, read
 * permission, and the values the chain's randomness gives at the tipset named.
 */
import { ChainRandomness } from '../../src/chain/index.js';
import { DomainSeparationTag } from '../../src/crypto/index.js';
import { allMethods, JsonRpcError, RpcClient } from '../../src/rpc/index.js';
import { Address, cidToLotusJson, encodeAddress, setDefaultNetwork, type TipSet } from '../../src/types/index.js';
import { type ChainServer, startChainServer } from '../helpers/chain-server.js';
import { PARAMS } from '../helpers/genesis.js';

const ENTROPY = encodeAddress(Address.newId(1000n));
const ENTROPY_B64 = Buffer.from(ENTROPY).toString('base64');

let c: ChainServer;
let client: RpcClient;
let first: TipSet;

const tsk = (tipSet: TipSet) => tipSet.cids.map(cidToLotusJson);
const decode = (answer: unknown) => new Uint8Array(Buffer.from(answer as string, 'base64'));

beforeAll(async () => {
  c = await startChainServer({ chain: { beaconSchedule: (epoch) => 100n + epoch } });
  client = new RpcClient({ url: c.url(1) });
  const data = (round: bigint) => new Uint8Array(32).fill(Number(round));
  first = await c.t.mine([{ beaconEntries: [{ round: 101n, data: data(101n) }] }]);
  await c.t.mine([{ beaconEntries: [{ round: 102n, data: data(102n) }] }]);
});

afterAll(async () => {
  await c.close();
  setDefaultNetwork('f');
});

describe('StateGetRandomnessFromTickets / FromBeacon', () => {
  it('are read methods taking [dst, randEpoch, entropy, tsk]', () => {
    for (const name of ['StateGetRandomnessFromTickets', 'StateGetRandomnessFromBeacon']) {
      const method = allMethods.find((m) => m.name === name)!;
      expect(method.permission).toBe('read');
      expect(method.params.map((p) => p.name)).toEqual(['personalization', 'randEpoch', 'entropy', 'tsk']);
    }
  });

  it('answer the draw at the head as 32 bytes of base64, as Filecoin.X too', async () => {
    const head = new ChainRandomness(c.t.chain, c.t.chain.head());
    const tickets = await client.request('Filecoin.StateGetRandomnessFromTickets', [5, 1, ENTROPY_B64, null]);
    expect(typeof tickets).toBe('string');
    expect(decode(tickets)).toHaveLength(32);
    expect(decode(tickets)).toEqual(head.drawFromTickets(DomainSeparationTag.SealRandomness, 1n, ENTROPY));
    const beacon = await client.request('Ledger.StateGetRandomnessFromBeacon', [6, 2, ENTROPY_B64, []]);
    expect(decode(beacon)).toEqual(head.drawFromBeacon(DomainSeparationTag.InteractiveSealChallengeSeed, 2n, ENTROPY));
  });

  it('null entropy is no entropy; a negative epoch reads genesis', async () => {
    const head = new ChainRandomness(c.t.chain, c.t.chain.head());
    const answer = await client.request('Filecoin.StateGetRandomnessFromTickets', [9, -3, null, null]);
    expect(decode(answer)).toEqual(head.drawFromTickets(DomainSeparationTag.PoStChainCommit, -3n, new Uint8Array()));
  });

  it('read the chain of the tipset named and refuse epochs after it', async () => {
    const answer = await client.request('Filecoin.StateGetRandomnessFromTickets', [5, 1, ENTROPY_B64, tsk(first)]);
    expect(decode(answer)).toEqual(
      new ChainRandomness(c.t.chain, first).drawFromTickets(DomainSeparationTag.SealRandomness, 1n, ENTROPY),
    );
    const error = await client
      .request('Filecoin.StateGetRandomnessFromBeacon', [6, 2, ENTROPY_B64, tsk(first)])
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(JsonRpcError);
    expect((error as JsonRpcError).message).toMatch(/cannot draw randomness from the future/);
  });

  it('name a malformed parameter', async () => {
    const error = await client
      .request('Filecoin.StateGetRandomnessFromTickets', [5, 'one', ENTROPY_B64, null])
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ rpcCode: -32602 });
    expect((error as Error).message).toMatch(/randEpoch/);
  });
});

describe('StateNetworkVersion', () => {
  it("answers the chain's network version as a number, for the head or a tipset", async () => {
    expect(await client.request('Filecoin.StateNetworkVersion', [null])).toBe(PARAMS.networkVersion);
    expect(await client.request('Filecoin.StateNetworkVersion', [tsk(first)])).toBe(28);
  });
});
