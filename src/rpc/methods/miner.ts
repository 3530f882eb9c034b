/**
 * Block production methods (filecoin-project/lotus `api/api_full.go`, `node/impl/full/state.go`):
 * MinerGetBaseInfo for the election inputs of a round, MinerCreateBlock to build and sign a block
 * from a template with the wallet's worker key.
 */
import { ChainError, ChainErrorCode } from '../../chain/index.js';
import type { MiningBaseInfoJson } from '../../miner/index.js';
import { blockTemplateParam, epochParam, nullableBlockMsgResult, tipSetKeyParam } from '../chain-codecs.js';
import { methodsNeeding } from '../method.js';
import { addressParam } from '../params.js';
import { jsonResult } from '../results.js';
import { cidSchema } from '../schemas.js';

const declareMinerMethod = methodsNeeding('chain', 'mining');

const beaconEntrySchema = { type: 'object', properties: { Round: { type: 'integer' }, Data: { type: 'string' } } };

export const minerGetBaseInfo = declareMinerMethod({
  name: 'MinerGetBaseInfo',
  description:
    'Returns what a miner needs to mine `round` on the tipset `tsk` (which must be given, not empty): beacon entries, lookback power, winning PoSt sectors, worker key and eligibility; null when the miner has no power or sectors at the lookback.',
  permission: 'read',
  expensive: true,
  params: [
    addressParam('miner', 'the miner address'),
    epochParam('round', 'the epoch to mine'),
    tipSetKeyParam('tsk', 'the parent tipset to mine on (required)'),
  ],
  result: jsonResult<MiningBaseInfoJson | null>('miningBaseInfo', 'Lotus MiningBaseInfo, or null', {
    oneOf: [
      {
        title: 'MiningBaseInfo',
        type: 'object',
        properties: {
          MinerPower: { type: 'string' },
          NetworkPower: { type: 'string' },
          Sectors: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                SealProof: { type: 'integer' },
                SectorNumber: { type: 'integer' },
                SectorKey: { oneOf: [cidSchema, { type: 'null' }] },
                SealedCID: cidSchema,
              },
            },
          },
          WorkerKey: { type: 'string' },
          SectorSize: { type: 'integer' },
          PrevBeaconEntry: beaconEntrySchema,
          BeaconEntries: { type: 'array', items: beaconEntrySchema },
          EligibleForMining: { type: 'boolean' },
        },
      },
      { type: 'null' },
    ],
  }),
  handler: async ([miner, round, key], { chain, mining }, call) => {
    if (key.isEmpty) {
      throw new ChainError(ChainErrorCode.NotFound, 'NewTipSet called with zero length array of blocks');
    }
    const base = chain.store.loadTipSet(key);
    return (await mining.baseInfo(miner, round, base, call.signal)) ?? null;
  },
});

export const minerCreateBlock = declareMinerMethod({
  name: 'MinerCreateBlock',
  description:
    "Builds a block from a template: parent state and receipts from executing the parents, base fee, weight, the template's messages split into BLS and secp256k1, BLS aggregate, and the worker key's signature (the node's wallet must hold it). Does not publish the block.",
  permission: 'write',
  expensive: true,
  params: [blockTemplateParam('template', 'Lotus BlockTemplate')],
  result: nullableBlockMsgResult('the block with its message CIDs'),
  handler: ([template], { mining }) => mining.createBlock(template),
});

export const minerMethods = [minerGetBaseInfo, minerCreateBlock];
