/**
 * The actor states declared with `declareStruct`: every state block a real genesis writes (and the
 * system actor's state from mainnet) decodes and re-encodes to the same bytes, through CBOR and
 * through Lotus JSON, and the JSON uses go-state-types' field names.
 */
import { gunzipSync } from 'node:zlib';
import { Amt, type Blockstore, getBlock, importCar, MemoryBlockstore } from '../../src/ipld/index.js';
import { type ActorName, actorNameOf, initStateStruct, StateTree } from '../../src/state/index.js';
import {
  type CborNode,
  type CID,
  decodeChainCbor,
  encodeCbor,
  parseCid,
  parseJsonLossless,
  type StructCodec,
  stringifyJsonLossless,
} from '../../src/types/index.js';
import { fromBase64 } from '../../src/utils/bytes.js';
import { loadVestingFunds, vestingFundStruct } from '../../src/vm/actors/vesting-funds.js';
import {
  ACTOR_STATE_STRUCTS,
  minerInfoStruct,
  minerStateStruct,
  powerStateStruct,
  rewardStateStruct,
  type SystemState,
  sectorOnChainInfoStruct,
  systemStateStruct,
} from '../../src/vm/index.js';
import { genesisState, multisigTemplate } from '../helpers/genesis.js';
import { readVectorJson } from '../vectors/vectors-dir.js';

// biome-ignore lint/suspicious/noExplicitAny: one table holds the codecs of every state type
type AnyStruct = StructCodec<any, any>;

/** The declared state of each actor type that has one (src/vm/actors/states.ts). */
const STATE_STRUCTS: Partial<Record<ActorName, AnyStruct>> = Object.fromEntries(
  Object.entries(ACTOR_STATE_STRUCTS).filter(([, struct]) => struct !== null),
);

/** Decodes `bytes` as `struct`, and checks that CBOR and Lotus JSON (as text) both give the bytes back. */
function expectRoundTrip(struct: AnyStruct, bytes: Uint8Array): unknown {
  const value = struct.decode(bytes);
  expect(Buffer.from(struct.encode(value)).equals(Buffer.from(bytes))).toBe(true);
  const json = parseJsonLossless(stringifyJsonLossless(struct.toLotusJson(value)));
  expect(Buffer.from(struct.encode(struct.fromLotusJson(json))).equals(Buffer.from(bytes))).toBe(true);
  return value;
}

function amtValues(store: Blockstore, root: Parameters<typeof Amt.load>[1]): CborNode[] {
  return [...Amt.load(store, root).entries()].map(([, value]) => value as CborNode);
}

describe('declared actor states on a real genesis', () => {
  const { store, genesisRoot } = genesisState(multisigTemplate());
  const tree = StateTree.load(store, genesisRoot);

  test('every state head re-encodes byte for byte through CBOR and Lotus JSON', () => {
    const checked = new Set<ActorName>();
    for (const [, actor] of tree.actors()) {
      const type = actorNameOf(actor.code);
      const struct = type === undefined ? undefined : STATE_STRUCTS[type];
      if (type === undefined || struct === undefined) continue;
      expectRoundTrip(struct, getBlock(store, actor.head));
      checked.add(type);
    }
    // No genesis holds a contract: the EVM state round-trips in test/vm/evm-actor.test.ts.
    const inGenesis = Object.keys(STATE_STRUCTS).filter((type) => type !== 'evm');
    expect([...checked].sort()).toEqual(inGenesis.sort());
  });

  test("the miner's info, sectors and vesting table re-encode byte for byte", () => {
    const state = minerStateStruct.decode(getBlock(store, tree.getActor(1000n)!.head));
    const info = expectRoundTrip(minerInfoStruct, getBlock(store, state.info)) as { sectorSize: bigint };
    expect(info.sectorSize).toBe(2048n);
    const sectors = amtValues(store, state.sectors);
    expect(sectors).toHaveLength(2);
    for (const node of sectors) {
      const sector = sectorOnChainInfoStruct.fromCborNode(node);
      expect(encodeCbor(sectorOnChainInfoStruct.toCborNode(sector))).toEqual(encodeCbor(node));
    }
    // The vesting table's head is inline in the state (checked above); its tail is a list block.
    expect(state.vestingFunds).not.toBeNull();
    const tail = getBlock(store, state.vestingFunds!.tail);
    const funds = loadVestingFunds(store, state.vestingFunds);
    expect(funds.length).toBeGreaterThan(1);
    expect(encodeCbor(funds.slice(1).map((fund) => vestingFundStruct.toCborNode(fund)))).toEqual(tail);
  });

  test("the power and reward states' Lotus JSON uses go-state-types' names", () => {
    const power = powerStateStruct.toLotusJson(powerStateStruct.decode(getBlock(store, tree.getActor(4n)!.head)));
    expect(Object.keys(power)).toEqual([
      'TotalRawBytePower',
      'TotalBytesCommitted',
      'TotalQualityAdjPower',
      'TotalQABytesCommitted',
      'TotalPledgeCollateral',
      'ThisEpochRawBytePower',
      'ThisEpochQualityAdjPower',
      'ThisEpochPledgeCollateral',
      'ThisEpochQAPowerSmoothed',
      'MinerCount',
      'MinerAboveMinPowerCount',
      'RampStartEpoch',
      'RampDurationEpochs',
      'CronEventQueue',
      'FirstCronEpoch',
      'Claims',
      'ProofValidationBatch',
    ]);
    // Two pre-sealed 2 KiB sectors; BigInts are decimal strings, epochs and counts numbers.
    expect(power.TotalBytesCommitted).toBe('4096');
    expect(power.MinerCount).toBe(1);
    expect(Object.keys(power.ThisEpochQAPowerSmoothed)).toEqual(['PositionEstimate', 'VelocityEstimate']);
    expect(power.ThisEpochQAPowerSmoothed.PositionEstimate).toMatch(/^[0-9]+$/);
    expect(power.ProofValidationBatch).toBeNull();

    const reward = rewardStateStruct.toLotusJson(rewardStateStruct.decode(getBlock(store, tree.getActor(2n)!.head)));
    expect(Object.keys(reward)).toEqual([
      'CumsumBaseline',
      'CumsumRealized',
      'EffectiveNetworkTime',
      'EffectiveBaselinePower',
      'ThisEpochReward',
      'ThisEpochRewardSmoothed',
      'ThisEpochBaselinePower',
      'Epoch',
      'TotalStoragePowerReward',
      'SimpleTotal',
      'BaselineTotal',
    ]);
    expect(reward.SimpleTotal).toBe(`330000000${'0'.repeat(18)}`);
  });

  test('a state of the wrong shape is refused naming the field', () => {
    const power = powerStateStruct.toCborNode(powerStateStruct.decode(getBlock(store, tree.getActor(4n)!.head)));
    power[9] = 'many';
    expect(() => powerStateStruct.fromCborNode(power)).toThrow('PowerState.MinerCount');
    expect(() => rewardStateStruct.fromCborNode(power)).toThrow('RewardState');
  });
});

interface StateIndex {
  vectors: { file: string; states: { which: string; actors: { address: string; actor: { head: string } }[] }[] }[];
}

describe('declared actor states on mainnet (fvm_ext vectors)', () => {
  test.each(['fvm_ext-0001-fil_9_account-Send-Ok-1.json', 'fvm_ext-0002-fil_10_storageminer-Send-Ok-2.json'])(
    "%s: the system and init actors' states re-encode byte for byte",
    async (file) => {
      const vector = readVectorJson<{ car: string }>('hamt-amt', file);
      const store = new MemoryBlockstore();
      await importCar(
        store,
        (async function* () {
          yield new Uint8Array(gunzipSync(fromBase64(vector.car)));
        })(),
      );
      const index = readVectorJson<StateIndex>('hamt-amt', 'fvm_vectors_state_index.json');
      const entry = index.vectors.find((v) => v.file === file)!;
      const system = entry.states[0]!.actors.find((a) => a.address === 'f00')!;
      const bytes = getBlock(store, parseCid(system.actor.head));
      const state = expectRoundTrip(systemStateStruct, bytes) as SystemState;
      // The manifest of the network's builtin-actors bundle: a real CID, as in the raw tuple.
      const [manifest] = decodeChainCbor(bytes, 'SystemState') as unknown as [CID];
      expect(state.builtinActors.equals(manifest)).toBe(true);
      expect(systemStateStruct.toLotusJson(state)).toEqual({ BuiltinActors: { '/': manifest.toString() } });
      const init = entry.states[0]!.actors.find((a) => a.address === 'f01')!;
      const initState = expectRoundTrip(initStateStruct, getBlock(store, parseCid(init.actor.head))) as {
        networkName: string;
      };
      expect(initState.networkName).toBe('mainnet');
    },
  );
});
