/**
 * State queries about the chain rather than an actor (filecoin-project/lotus `api/api_full.go`,
 * `node/impl/full/state.go`, `chain/stmgr/stmgr.go`): chain randomness as actors draw it, and the
 * network version.
 */
import { ChainRandomness } from '../../chain/index.js';
import { epochParam, tipSetKeyParam } from '../chain-codecs.js';
import { bytesParam, int64Param } from '../params.js';
import { bytesResult, jsonResult } from '../results.js';
import { declareChainMethod } from './chain.js';

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

export const stateNetworkMethods = [stateGetRandomnessFromTickets, stateGetRandomnessFromBeacon, stateNetworkVersion];
