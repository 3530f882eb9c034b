/**
 * State queries about the chain rather than an actor (filecoin-project/lotus `api/api_full.go`,
 * `node/impl/full/state.go`, `chain/stmgr/stmgr.go`): chain randomness as actors draw it, beacon
 * entries, the network version and the network's parameters.
 */
import { ChainRandomness, type ChainStore } from '../../chain/index.js';
import { ACTOR_CODES, ACTORS_VERSION, StateTree } from '../../state/index.js';
import {
  type BeaconEntry,
  type BeaconEntryJson,
  beaconEntryStruct,
  type CidJson,
  cidToLotusJson,
} from '../../types/index.js';
import { AbortedError } from '../../utils/abort.js';
import { epochParam, tipSetKeyParam } from '../chain-codecs.js';
import type { ChainContext } from '../context.js';
import type { ResultDeclaration } from '../method.js';
import { bytesParam, int64Param, uint64Param } from '../params.js';
import { bytesResult, jsonResult } from '../results.js';
import { bigIntSchema, cidSchema, stringSchema } from '../schemas.js';
import { declareChainMethod } from './chain.js';
import { failCall } from './state-miner-common.js';

const randomnessParams = [
  int64Param('personalization', 'the DomainSeparationTag (e.g. 5 SealRandomness, 6 InteractiveSealChallengeSeed)'),
  epochParam('randEpoch', 'the epoch drawn from; at most the tipset height, negative reads genesis'),
  bytesParam('entropy', 'base64 entropy (usually the CBOR of the miner ID address); null for none'),
  tipSetKeyParam('tsk', 'the tipset whose chain is read; null or [] for the head'),
] as const;

/** Both draws: the same parameters, read permission and answer; `draw` picks the source. */
function randomnessMethod<N extends string>(name: N, description: string, draw: 'drawFromTickets' | 'drawFromBeacon') {
  return declareChainMethod({
    name,
    description,
    permission: 'read',
    params: randomnessParams,
    result: bytesResult('32 bytes of randomness'),
    handler: ([personalization, epoch, entropy, key], { chain }) =>
      new ChainRandomness(chain.store, chain.store.tipSetOrHead(key))[draw](personalization, epoch, entropy),
  });
}

export const stateGetRandomnessFromTickets = randomnessMethod(
  'StateGetRandomnessFromTickets',
  "Draws randomness from the min ticket at an epoch of the tipset's chain (the first non-null tipset at or after it), as the seal ticket and the PoSt chain commit are drawn.",
  'drawFromTickets',
);

export const stateGetRandomnessFromBeacon = randomnessMethod(
  'StateGetRandomnessFromBeacon',
  "Draws randomness from the beacon entry an epoch reads on the tipset's chain, as the interactive seal seed and the window PoSt challenge are drawn.",
  'drawFromBeacon',
);

/** Both digests: the epoch and the tipset, read permission, v1 only (Lotus added them to v1 alone). */
function randomnessDigestMethod<N extends string>(
  name: N,
  description: string,
  digest: 'ticketDigest' | 'beaconDigest',
) {
  return declareChainMethod({
    name,
    description,
    permission: 'read',
    apiVersions: [1],
    params: [
      epochParam('randEpoch', 'the epoch drawn from; at most the tipset height, negative reads genesis'),
      tipSetKeyParam('tsk', 'the tipset whose chain is read; null or [] for the head'),
    ],
    result: bytesResult('the 32-byte digest'),
    handler: ([epoch, key], { chain }) =>
      new ChainRandomness(chain.store, chain.store.tipSetOrHead(key))[digest](epoch),
  });
}

export const stateGetRandomnessDigestFromTickets = randomnessDigestMethod(
  'StateGetRandomnessDigestFromTickets',
  "The digest ticket randomness is drawn from, before personalization and entropy: blake2b-256 of the min ticket at an epoch of the tipset's chain (what the FVM's chain-randomness extern returns).",
  'ticketDigest',
);

export const stateGetRandomnessDigestFromBeacon = randomnessDigestMethod(
  'StateGetRandomnessDigestFromBeacon',
  "The digest beacon randomness is drawn from, before personalization and entropy: blake2b-256 of the beacon entry an epoch reads on the tipset's chain (what the FVM's beacon-randomness extern returns).",
  'beaconDigest',
);

export const stateActorCodeCids = declareChainMethod({
  name: 'StateActorCodeCIDs',
  description: `The code CID of each builtin actor this node runs, by manifest name, for its network version (actors v${ACTORS_VERSION}, fil/${ACTORS_VERSION}/<name> identity CIDs: docs/chain.md); an error for any other version, which this node does not run.`,
  permission: 'read',
  params: [uint64Param('networkVersion', 'the network version')],
  result: jsonResult<Record<string, CidJson>>('actorCodes', 'manifest name → code CID', {
    type: 'object',
    additionalProperties: cidSchema,
  }),
  handler: ([version], { chain }) => {
    if (version !== BigInt(chain.params.networkVersion)) {
      failCall(
        `no actor code CIDs for network version ${version}: this node runs network version ${chain.params.networkVersion} (actors v${ACTORS_VERSION}) from genesis on`,
      );
    }
    return Object.fromEntries(Object.entries(ACTOR_CODES).map(([name, code]) => [name, cidToLotusJson(code)]));
  },
});

export const stateNetworkVersion = declareChainMethod({
  name: 'StateNetworkVersion',
  description: "Returns the network version at a tipset's height (this node runs one version from genesis on).",
  permission: 'read',
  params: [tipSetKeyParam('tsk', 'the tipset; null or [] for the head')],
  result: jsonResult<number>('version', 'the network version', { type: 'integer', minimum: 0 }),
  handler: ([key], { chain }) => {
    chain.store.tipSetOrHead(key); // an unknown tipset is an error, as in Lotus
    return chain.params.networkVersion;
  },
});

/** The network's name, as the init actor of the head's state records it (Lotus `StateNetworkName`). */
export function networkNameOf(chain: ChainContext): string {
  return StateTree.load(chain.store.blockstore, chain.store.head().parentStateRoot).initState().networkName;
}

/** Resolves once the head is at `height` or above; rejects when `signal` fires first. */
function headAtLeast(store: ChainStore, height: bigint, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new AbortedError(signal.reason));
    const finish = (error?: AbortedError) => {
      unsubscribe();
      signal?.removeEventListener('abort', onAbort);
      if (error === undefined) resolve();
      else reject(error);
    };
    const onAbort = () => finish(new AbortedError(signal?.reason));
    const unsubscribe = store.subscribeHeadChanges(() => {
      if (store.head().height >= height) finish();
    });
    signal?.addEventListener('abort', onAbort);
    if (store.head().height >= height) finish();
  });
}

const beaconEntryResult: ResultDeclaration<BeaconEntry, BeaconEntryJson> = {
  name: 'beaconEntry',
  description: 'the beacon entry {Round, Data}',
  schema: beaconEntryStruct.schema,
  encode: beaconEntryStruct.toLotusJson,
};

export const stateGetBeaconEntry = declareChainMethod({
  name: 'StateGetBeaconEntry',
  description:
    "Returns the beacon entry an epoch reads, from the entries recorded on the canonical chain (a negative epoch reads epoch 0); for an epoch above the head it waits until the chain gets there (Lotus waits for drand's round), ending when the caller hangs up or the node stops.",
  permission: 'read',
  apiVersions: [1],
  params: [epochParam('epoch', 'the epoch')],
  result: beaconEntryResult,
  handler: async ([epoch], { chain: { store } }, { signal }) => {
    if (epoch > store.head().height) await headAtLeast(store, epoch, signal);
    const round = epoch < 0n ? 0n : epoch;
    return new ChainRandomness(store, store.head()).beaconEntry(round);
  },
});

/**
 * Lotus `api.ForkUpgradeParams`: each network upgrade with the network version it brings
 * (filecoin-project/lotus `chain/consensus/filcns/upgrades.go`; Claus and Phoenix changed no
 * version). BreezeGasTampingDuration is no upgrade; it is 0 where Breeze is before genesis.
 */
const FORK_UPGRADES: ReadonlyArray<readonly [field: string, networkVersion: number]> = [
  ['UpgradeSmokeHeight', 2],
  ['UpgradeBreezeHeight', 1],
  ['UpgradeIgnitionHeight', 3],
  ['UpgradeLiftoffHeight', 5],
  ['UpgradeAssemblyHeight', 4],
  ['UpgradeRefuelHeight', 3],
  ['UpgradeTapeHeight', 5],
  ['UpgradeKumquatHeight', 6],
  ['UpgradeCalicoHeight', 7],
  ['UpgradePersianHeight', 8],
  ['UpgradeOrangeHeight', 9],
  ['UpgradeClausHeight', 9],
  ['UpgradeTrustHeight', 10],
  ['UpgradeNorwegianHeight', 11],
  ['UpgradeTurboHeight', 12],
  ['UpgradeHyperdriveHeight', 13],
  ['UpgradeChocolateHeight', 14],
  ['UpgradeOhSnapHeight', 15],
  ['UpgradeSkyrHeight', 16],
  ['UpgradeSharkHeight', 17],
  ['UpgradeHyggeHeight', 18],
  ['UpgradeLightningHeight', 19],
  ['UpgradeThunderHeight', 20],
  ['UpgradeWatermelonHeight', 21],
  ['UpgradeDragonHeight', 22],
  ['UpgradePhoenixHeight', 22],
  ['UpgradeWaffleHeight', 23],
  ['UpgradeTuktukHeight', 24],
  ['UpgradeTeepHeight', 25],
  ['UpgradeTockHeight', 26],
  ['UpgradeGoldenWeekHeight', 27],
  ['UpgradeFireHorseHeight', 28],
  ['UpgradeXxHeight', 29],
];

/** An upgrade the chain ran before its genesis: Lotus's devnets give those negative heights. */
const BEFORE_GENESIS = -1;
/** An upgrade this network never runs: the height Lotus gives a disabled upgrade (math.MaxInt64 − 1). */
const NEVER = 2n ** 63n - 2n;

/** Lotus `api.NetworkParams`. */
export interface NetworkParamsJson {
  NetworkName: string;
  BlockDelaySecs: number;
  ConsensusMinerMinPower: string;
  PreCommitChallengeDelay: number;
  ForkUpgradeParams: Record<string, number | bigint>;
  Eip155ChainID: number;
  GenesisTimestamp: number;
}

function forkUpgradeParams(networkVersion: number): Record<string, number | bigint> {
  const heights: Record<string, number | bigint> = {};
  for (const [field, version] of FORK_UPGRADES) {
    heights[field] = version <= networkVersion ? BEFORE_GENESIS : NEVER;
    if (field === 'UpgradeKumquatHeight') heights.BreezeGasTampingDuration = 0;
  }
  return heights;
}

export const stateGetNetworkParams = declareChainMethod({
  name: 'StateGetNetworkParams',
  description:
    "Returns the network's parameters: name, block delay, the consensus minimum power, the pre-commit challenge delay, the upgrade heights (every upgrade up to the network version the chain runs from genesis at -1, the later ones at 2^63-2, never), the EIP-155 chain id and the genesis timestamp.",
  permission: 'read',
  params: [],
  result: jsonResult<NetworkParamsJson>('networkParams', 'Lotus NetworkParams', {
    title: 'NetworkParams',
    type: 'object',
    properties: {
      NetworkName: stringSchema,
      BlockDelaySecs: { type: 'integer', minimum: 0 },
      ConsensusMinerMinPower: bigIntSchema,
      PreCommitChallengeDelay: { type: 'integer' },
      ForkUpgradeParams: { type: 'object', additionalProperties: { type: 'integer' } },
      Eip155ChainID: { type: 'integer' },
      GenesisTimestamp: { type: 'integer', minimum: 0 },
    },
  }),
  handler: (_params, { chain }) => ({
    NetworkName: networkNameOf(chain),
    BlockDelaySecs: Number(chain.params.blockDelaySecs),
    ConsensusMinerMinPower: chain.params.consensusMinerMinPower.toString(),
    PreCommitChallengeDelay: Number(chain.params.minerPolicy.preCommitChallengeDelay),
    ForkUpgradeParams: forkUpgradeParams(chain.params.networkVersion),
    Eip155ChainID: chain.params.eip155ChainId,
    GenesisTimestamp: Number(chain.store.genesis.minTicketBlock.timestamp),
  }),
});

export const stateNetworkMethods = [
  stateGetRandomnessFromTickets,
  stateGetRandomnessFromBeacon,
  stateNetworkVersion,
  stateGetBeaconEntry,
  stateGetNetworkParams,
  stateGetRandomnessDigestFromTickets,
  stateGetRandomnessDigestFromBeacon,
  stateActorCodeCids,
];
